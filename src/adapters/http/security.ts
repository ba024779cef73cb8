import cors from 'cors';
import type { Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';

/** Helmet's options for a JSON API: nothing may be framed, scripted or sniffed. */
export const API_HELMET_OPTIONS = {
  contentSecurityPolicy: { useDefaults: false, directives: { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] } },
  crossOriginResourcePolicy: { policy: 'same-origin' },
  referrerPolicy: { policy: 'no-referrer' },
} as const satisfies Parameters<typeof helmet>[0];

type HeaderStep = readonly [name: string, value: string | undefined];

/**
 * A header middleware whose output never depends on the request (helmet with static options), replayed:
 * it runs once on a recording response at start-up, and every request then gets the same headers set
 * (and removed) in the same order, in one call instead of a dozen nested ones. Refuses a middleware that
 * does anything else (reads the request, calls back later or with an error), so a change of options that
 * made the headers depend on the request could not be frozen by mistake.
 */
export function replayedHeaders(middleware: RequestHandler): RequestHandler {
  const steps: HeaderStep[] = [];
  const recorder = {
    setHeader(name: string, value: unknown) {
      if (typeof value !== 'string') throw new Error(`header ${name}: not a string`);
      steps.push([name, value]);
    },
    removeHeader(name: string) {
      steps.push([name, undefined]);
    },
  };
  const request = new Proxy({}, { get: (_t, key) => { throw new Error(`the header middleware reads the request (${String(key)})`); } });
  let done: unknown = 'not called';
  middleware(request as Request, recorder as unknown as Response, (error?: unknown) => (done = error));
  if (done !== undefined) throw new Error('the header middleware did not hand on synchronously and without error');
  return function replayedHeaderMiddleware(_req, res, next) {
    for (const [name, value] of steps) {
      if (value === undefined) res.removeHeader(name);
      else res.setHeader(name, value);
    }
    next();
  };
}

/** Helmet for a JSON API (API_HELMET_OPTIONS), replayed. */
export const apiHeaders: RequestHandler = replayedHeaders(helmet(API_HELMET_OPTIONS));

/** Swagger UI needs its own scripts, styles and inline images, and nothing else. */
export const docsHeaders: RequestHandler = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      'default-src': ["'none'"],
      'script-src': ["'self'"],
      'style-src': ["'self'", "'unsafe-inline'"],
      'img-src': ["'self'", 'data:'],
      'connect-src': ["'self'"],
      'frame-ancestors': ["'none'"],
    },
  },
  referrerPolicy: { policy: 'no-referrer' },
});

/** API responses carry user data and are never cached. */
export const noStore: RequestHandler = (_req, res, next) => {
  res.setHeader('Cache-Control', 'no-store');
  next();
};

/**
 * CORS for an explicit allow-list only; no credentials, arbitrary origins are never echoed. A request
 * from any other origin gets no CORS header at all, not even on a preflight.
 */
export function corsFor(origins: readonly string[]): RequestHandler {
  const allowed = new Set(origins);
  return cors({
    origin: (origin, callback) => callback(null, origin !== undefined && allowed.has(origin) ? origin : false),
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Request-Id', 'Range', 'If-None-Match'],
    exposedHeaders: ['Location', 'Retry-After', 'ETag', 'Content-Disposition', 'Content-Range', 'X-Request-Id'],
    maxAge: 600,
  });
}
