import cors from 'cors';
import type { RequestHandler } from 'express';
import helmet from 'helmet';

/** Helmet for a JSON API: nothing may be framed, scripted or sniffed. */
export const apiHeaders: RequestHandler = helmet({
  contentSecurityPolicy: { useDefaults: false, directives: { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"] } },
  crossOriginResourcePolicy: { policy: 'same-origin' },
  referrerPolicy: { policy: 'no-referrer' },
});

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
