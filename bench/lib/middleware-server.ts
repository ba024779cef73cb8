/**
 * The real Stacks app (the production composition over DATA_DIR's SQLite store, no housekeeping) with
 * one middleware of its chain replaced by a pass-through, named by BENCH_PASS_THROUGH (or `none`):
 * bench/middleware.ts times each variant. A pass-through does the middleware's job as a constant:
 * `auth` answers every request with the caller its first request authenticated, `body parsing` drains
 * the body and hands on the value the real parser produced first, `router` sends the request straight
 * to its route's handlers. The chain is found by shape and checked: a change to createApp that moves
 * a middleware stops the bench with a message instead of timing the wrong thing.
 */
import 'reflect-metadata';
import type { Express, Request, RequestHandler } from 'express';
import { pino } from 'pino';
import { createApp } from '../../src/adapters/http/app.js';
import { createHttpServer, listen } from '../../src/adapters/http/http-server.js';
import { loadConfig } from '../../src/bootstrap/config.js';
import { buildContainer } from '../../src/bootstrap/container.js';
import { httpDepsFrom } from '../../src/bootstrap/http.js';
import { Authenticate } from '../../src/index.js';

export const MIDDLEWARES = ['request log', 'CORS', 'rate limit', 'secret-check lane', 'security headers', 'auth', 'body parsing', 'router'] as const;
export type MiddlewareName = (typeof MIDDLEWARES)[number];

interface Layer {
  name: string;
  handle: RequestHandler & { stack?: Layer[] };
  route?: { path: string; methods: Record<string, boolean>; stack: Layer[] };
  /** router 2: the params and matched path, or false. */
  match(path: string): { params: Record<string, string> } | false;
}

const passThrough: RequestHandler = (_req, _res, next) => next();

/** One app-level middleware: a layer of the app's router, or one of the handlers a layer runs in order (in-order.ts). */
interface Slot {
  readonly name: string;
  readonly source: string;
  replace(handler: RequestHandler): void;
  /** Runs `handler` right after this middleware (as a handler of the same in-order layer, or a layer of its own). */
  follow(handler: RequestHandler): void;
}

function slots(stack: Layer[]): Slot[] {
  return stack.flatMap((layer): Slot[] => {
    const handlers = (layer.handle as { handlers?: RequestHandler[] }).handlers;
    if (!handlers) {
      return [{
        name: layer.name, source: String(layer.handle), replace: (h) => void (layer.handle = h),
        follow: (h) => void stack.splice(stack.indexOf(layer) + 1, 0, Object.assign(Object.create(Object.getPrototypeOf(layer) as object) as Layer, layer, { handle: h })),
      }];
    }
    return handlers.map((handler) => ({
      name: handler.name, source: String(handler),
      replace: (h) => void handlers.splice(handlers.indexOf(handler), 1, h),
      follow: (h) => void handlers.splice(handlers.indexOf(handler) + 1, 0, h),
    }));
  });
}

/** The app-level middleware whose source shows `marker`; exactly one must. */
function layerShowing(stack: Layer[], marker: string): Slot {
  const found = slots(stack).filter((slot) => slot.source.includes(marker));
  if (found.length !== 1) throw new Error(`expected one app-level middleware showing '${marker}', found ${found.length}: the chain changed`);
  return found[0]!;
}

/** The API's mount (`app.use(apiHeaders, noStore, api)`): the last router and the two header layers before it. */
function apiMount(stack: Layer[]): { headers: Layer[]; router: Layer } {
  const at = stack.map((l) => l.name).lastIndexOf('router');
  const headers = stack.slice(at - 2, at);
  if (at < 2 || headers[0]?.name !== 'replayedHeaderMiddleware' || headers[1]?.name !== 'noStore') throw new Error('the API mount changed');
  return { headers, router: stack[at]! };
}

function replace(app: Express, name: MiddlewareName, auth: Authenticate): void {
  const stack = (app as unknown as { router: { stack: Layer[] } }).router.stack;
  const api = apiMount(stack);
  const routes = (api.router.handle.stack ?? []).filter((l) => l.route);
  switch (name) {
    case 'request log': return layerShowing(stack, 'x-request-id').replace(passThrough);
    case 'CORS': return slots(stack).find((slot) => slot.name === 'corsMiddleware')!.replace(passThrough);
    case 'rate limit': return layerShowing(stack, 'HEALTH.has(req.path)').replace(passThrough);
    case 'secret-check lane': return layerShowing(stack, 'checksSecret(req)').replace(passThrough);
    case 'security headers': return void api.headers.forEach((l) => (l.handle = passThrough));
    case 'auth': {
      const real = auth.execute.bind(auth);
      const first = new Map<string, ReturnType<typeof real>>();
      auth.execute = (token, address) => {
        const key = String(token);
        if (!first.has(key)) first.set(key, real(token, address));
        return first.get(key)!;
      };
      return;
    }
    case 'body parsing': {
      const parsers = routes.flatMap((l) => l.route!.stack.filter((s) => s.name === 'jsonParser'));
      if (parsers.length === 0) throw new Error('no JSON body parser found on the API routes');
      for (const parser of parsers) {
        const real = parser.handle;
        let parsed: unknown;
        parser.handle = (req, res, next) => {
          if (parsed === undefined) return real(req, res, (err?: unknown) => ((parsed = req.body), next(err)));
          req.body = parsed;
          req.resume().once('end', () => next());
        };
      }
      return;
    }
    case 'router': {
      // Straight to the matching route's own handlers, past Express's walk of the app and API layers.
      const direct: RequestHandler = (req, res, next) => {
        let matched: { params: Record<string, string> } | false = false;
        const route = routes.find((l) => l.route!.methods[req.method.toLowerCase()] && (matched = l.match(req.path)));
        if (!route || !matched) return next();
        (req as Request & { params: Record<string, string> }).params = { ...(matched as { params: Record<string, string> }).params };
        api.headers[0]!.handle(req, res, () => api.headers[1]!.handle(req, res, () => route.handle(req, res, next)));
      };
      return layerShowing(stack, 'checksSecret(req)').follow(direct);
    }
  }
}

async function main(): Promise<void> {
  const name = (process.env.BENCH_PASS_THROUGH ?? 'none') as MiddlewareName | 'none';
  if (name !== 'none' && !MIDDLEWARES.includes(name)) throw new Error(`BENCH_PASS_THROUGH must be none or one of ${MIDDLEWARES.join(', ')}`);
  const config = loadConfig({ ...process.env, WORKERS: '1' });
  const container = await buildContainer(config, pino({ level: config.logLevel, base: { service: 'stacks' } }));
  const deps = httpDepsFrom(container);
  const app = createApp(deps);
  if (name !== 'none') replace(app, name, container.di.resolve(Authenticate));
  const server = createHttpServer(app);
  await listen(server, config.port, config.host);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => server.close(() => void container.dispose().then(() => process.exit(0))));
}

if (process.env.BENCH_PASS_THROUGH !== undefined) {
  main().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
