# syntax=docker/dockerfile:1
# Stacks: build with dev dependencies, run with production ones only, as a non-root user.
# Node 24 (Active LTS). On Node 22.14+ and 24 Stacks uses better-sqlite3 13, whose prebuilt Node-API
# binary ships inside the package: nothing is compiled, so no toolchain. (The better-sqlite3 12 alias,
# only for older Node, is optional: npm fetches its prebuilt binary or leaves it out.)
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS toolchain
WORKDIR /app
# Test-only packages must not download a mongod during install.
ENV MONGOMS_DISABLE_POSTINSTALL=1

FROM toolchain AS build
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npx tsc -p tsconfig.build.json

FROM toolchain AS deps
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8000 DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/bootstrap/main.js"]
