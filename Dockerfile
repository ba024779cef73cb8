# syntax=docker/dockerfile:1
# Stacks: build with dev dependencies, run with production ones only, as a non-root user.
# Node 24 (Active LTS): Stacks uses better-sqlite3 13 there, whose prebuilt Node-API binary ships in
# the package. npm still runs an empty node-gyp build for it (WiseLibs/better-sqlite3#1516), which
# needs python3 and make; g++ lets the optional better-sqlite3 12 alias (for Node 20) build too.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS toolchain
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# Test-only packages must not download a mongod during install.
ENV MONGOMS_DISABLE_POSTINSTALL=1

FROM toolchain AS build
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/bundle.mjs ./scripts/
COPY src ./src
# dist/ (the stacks command) and dist/bundle/ (the server, what npm start runs; see scripts/bundle.mjs).
RUN npm run build

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
CMD ["node", "dist/bundle/main.js"]
