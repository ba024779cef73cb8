import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { printable } from '../../domain/text.js';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
/** A Kobo sync URL carries its secret as the path segment after /kobo: never logged. */
const redacted = (path: string): string => path.replace(/^\/kobo\/[^/]+/, '/kobo/[secret]');

/** Assigns a request id and logs one JSON line per request, with the client address (as TRUST_PROXY reads it): no headers, bodies or query strings. */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    req.id = incoming && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', req.id);
    const started = process.hrtime.bigint();
    res.on('close', () => {
      const route = (req.route as { path?: string } | undefined)?.path;
      logger.info(
        {
          req_id: req.id,
          method: req.method,
          address: req.ip ?? null,
          route: route ? redacted(`${req.baseUrl}${route}`) : null,
          path: printable(redacted(req.originalUrl.split('?')[0]!).slice(0, 200)),
          status: res.statusCode,
          duration_ms: Number(process.hrtime.bigint() - started) / 1e6,
          aborted: !res.writableFinished,
        },
        'request',
      );
    });
    next();
  };
}
