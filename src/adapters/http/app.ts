import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Authenticate } from '../../application/use-cases/authenticate.js';
import { requestsInFlightCap } from './address-cap.js';
import { bearerAuthenticator } from './bearer.js';
import { errorHandler, sendProblem, statusOf } from './error-handler.js';
import { methodNotAllowed as notAllowedHere, routeNotFound as noRoute } from './http-errors.js';
import { inOrder } from './in-order.js';
import { fastJsonResponses } from './json-response.js';
import { loadedOnFirstRequest } from './loaded-on-first-request.js';
import { openApiDocument } from './openapi.js';
import { requestLog } from './request-log.js';
import { rateLimits, type RateLimitSettings } from './rate-limit.js';
import { checkOperationIds, mountRoute, registryOf, type AnyRoute } from './route.js';
import { checksSecretAt, pathPattern, secretCheckLane } from './secret-check-lane.js';
import { apiHeaders, corsFor, docsHeaders, noStore } from './security.js';
import { trustedAddress } from './trusted-address.js';

export interface HttpSettings {
  readonly publicUrl: string;
  readonly corsOrigins: readonly string[];
  /** Number of trusted reverse-proxy hops in front of the service (0: none). */
  readonly trustProxy: number;
  /** Per-address request budgets; none when absent. */
  readonly rateLimits?: RateLimitSettings;
  /** Behind a proxy (trustProxy > 0): requests in flight per forwarded address (MAX_CONNECTIONS_PER_ADDRESS); the server caps connections otherwise. */
  readonly maxConnectionsPerAddress?: number;
}

export interface HttpDeps {
  readonly logger: Logger;
  readonly settings: HttpSettings;
  readonly authenticate: Authenticate;
  /** Every API route; each is mounted and documented from the same declaration. */
  readonly routes: readonly AnyRoute[];
  /** Non-JSON routers (OPDS) mounted at their path, outside the OpenAPI document. */
  readonly extraRouters?: readonly MountedRouter[];
}

export interface MountedRouter {
  readonly path: string;
  readonly router: RequestHandler;
  /** How errors under `path` are answered when the router's own handler never saw them (e.g. the request budget's 429). */
  readonly errors?: ErrorRequestHandler;
  /** Every request under `path` checks a password or key (KOReader's sync key, OPDS Basic): it waits in the secret-check lane. */
  readonly checksSecrets?: boolean;
  /** The router answers every request under `path` itself, OPTIONS and unknown paths included, in its protocol's own form. */
  readonly answersEverything?: boolean;
}

/** Builds the Express application (no listen). */
export function createApp(deps: HttpDeps): Express {
  checkOperationIds(deps.routes);
  const app = express();
  // One spelling per path: `/API/auth/register` is no second door past a limit, the secret-check lane or a log rule.
  // Set before the first `use`, which creates the app's router with it; every router below is made case-sensitive too.
  app.enable('case sensitive routing');
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('trust proxy', deps.settings.trustProxy);
  app.set('query parser', 'simple');
  fastJsonResponses(app);
  // Every request passes these, in this order, as one layer of the router (see in-order.ts).
  app.use(inOrder([
    trustedAddress(deps.settings.trustProxy),
    requestLog(deps.logger),
    ...(deps.settings.trustProxy > 0 && deps.settings.maxConnectionsPerAddress
      ? [requestsInFlightCap(deps.settings.maxConnectionsPerAddress, (req, res, next) => apiHeaders(req, res, () => noStore(req, res, next)))]
      : []),
    corsFor(deps.settings.corsOrigins),
    optionsRefused(deps.routes, (deps.extraRouters ?? []).filter((r) => r.answersEverything).map((r) => r.path)),
    ...(deps.settings.rateLimits ? [rateLimits(deps.settings.rateLimits, refusedWith)] : []),
    // After the request budgets, so a flood beyond its budget is refused at once instead of queueing.
    secretCheckLane(secretChecksOf(deps)),
  ]));

  const authenticate = bearerAuthenticator(deps.authenticate);
  const api = routedByGroup(deps.routes, (router, spec) => mountRoute(router, spec, authenticate));
  // The document, and the registry of every route's schemas it comes from, are built on the first
  // request, not at start-up (they are the slowest part of building the app).
  let document: ReturnType<typeof openApiDocument> | undefined;

  app.get('/openapi.json', apiHeaders, (_req, res) => {
    document ??= openApiDocument(registryOf(deps.routes), deps.settings.publicUrl);
    res.json(document);
  });
  // Swagger UI's package (and Express's static file server for its assets) loads at the first request under /docs.
  app.use('/docs', docsHeaders, loadedOnFirstRequest(swaggerUiRouter));
  for (const extra of deps.extraRouters ?? []) app.use(extra.path, apiHeaders, noStore, extra.router);
  app.use(apiHeaders, noStore, api);
  app.use(methodNotAllowed(deps.routes));
  app.use(routeNotFound);
  for (const extra of deps.extraRouters ?? []) if (extra.errors) app.use(extra.path, extra.errors);
  app.use(errorHandler(deps.logger));
  return app;
}

const swaggerOptions = {
  customSiteTitle: 'Stacks API',
  swaggerOptions: { url: '/openapi.json', persistAuthorization: true, queryConfigEnabled: false },
};

/** Swagger UI: its assets, and its page pointing at /openapi.json (a `?url=` is ignored). */
async function swaggerUiRouter(): Promise<RequestHandler> {
  const { default: swaggerUi } = await import('swagger-ui-express');
  const router = express.Router({ caseSensitive: true });
  router.use(swaggerUi.serveFiles(undefined, swaggerOptions), swaggerUi.setup(undefined, swaggerOptions));
  return router;
}

/**
 * The API's routes in one router per group of paths (`/api/books…`, `/api/auth…`, `/healthz`: the first
 * segment, or the first two under `/api`), the request handed to its group's router only. Express tries a
 * router's routes one after another (GET /api/books/{id} was the 26th of 46), and every route of a group
 * keeps its whole path, so each route matches exactly the requests it did; a path of no group goes on
 * (to 405 or 404), as it did past every route.
 */
function routedByGroup(routes: readonly AnyRoute[], mount: (router: express.Router, spec: AnyRoute) => void): RequestHandler {
  const groups = new Map<string, express.Router>();
  for (const spec of routes) {
    const group = groupOf(spec.path)!;
    let router = groups.get(group);
    if (!router) groups.set(group, (router = express.Router({ caseSensitive: true })));
    mount(router, spec);
  }
  const routesOfGroup: RequestHandler = (req, res, next) => {
    const group = groupOf(req.path);
    const router = group === undefined ? undefined : groups.get(group);
    if (router) router(req, res, next);
    else next();
  };
  // Every group's routes as one router's stack, for what lists the routes an app serves (the route inventory, CFG-06).
  return Object.defineProperty(routesOfGroup, 'stack', { get: () => [...groups.values()].flatMap((router) => router.stack) });
}

/** The group of a path; none for a request target that is no path (`GET * HTTP/1.1`, which Node lets through). */
const groupOf = (path: string): string | undefined => /^\/(?:api\/)?[^/]*/.exec(path)?.[0];

/** Sends an early refusal through the API headers and the error handler. */
const refusedWith = (error: Error): RequestHandler => (req, res, next) => apiHeaders(req, res, () => noStore(req, res, () => next(error)));

const routeNotFound: RequestHandler = (req, res) => {
  const error = noRoute(req.method, req.path);
  sendProblem(res, statusOf(error), error.code, error.message);
};

/**
 * OPTIONS is only the CORS preflight (answered by cors for allowed origins); any other OPTIONS is 405 or
 * 404, except under the prefixes of routers that answer everything themselves.
 */
function optionsRefused(routes: readonly AnyRoute[], ownedPrefixes: readonly string[]): RequestHandler {
  const notAllowed = methodNotAllowed(routes);
  return (req, res, next) => {
    if (req.method !== 'OPTIONS' || ownedPrefixes.some((p) => req.path === p || req.path.startsWith(`${p}/`))) return next();
    apiHeaders(req, res, () => noStore(req, res, () => notAllowed(req, res, () => routeNotFound(req, res, next))));
  };
}

/** The routes declared with `checksSecret` and the routers declared with `checksSecrets`. */
export function secretChecksOf(deps: Pick<HttpDeps, 'routes' | 'extraRouters'>) {
  return checksSecretAt(deps.routes.filter((r) => r.checksSecret), (deps.extraRouters ?? []).filter((r) => r.checksSecrets).map((r) => r.path));
}

/** A known path asked with another method is 405 with `Allow`, not 404. */
function methodNotAllowed(routes: readonly AnyRoute[]): RequestHandler {
  const patterns = routes.map((r) => ({
    method: r.method.toUpperCase(),
    regex: pathPattern(r.path),
  }));
  return (req, res, next) => {
    const allowed = patterns.filter((p) => p.regex.test(req.path)).map((p) => p.method);
    if (allowed.length === 0) return next();
    if (allowed.includes('GET')) allowed.push('HEAD');
    res.setHeader('Allow', [...new Set(allowed)].join(', '));
    const problem = notAllowedHere(req.method);
    sendProblem(res, problem.status, problem.code, problem.detail);
  };
}
