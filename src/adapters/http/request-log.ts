import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from 'pino';
import { printable } from '../../domain/text.js';

const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;
const SEPARATOR = /(\/|%2f)/i;
const SKIPPED = new Set(['', '.', '..']);

/** A path segment as a lenient reader would take it: percent-decoded (again and again) and in lower case. */
function plain(segment: string): string {
  let text = segment;
  for (let i = 0; i < 5; i++) {
    const decoded = text.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
    if (decoded === text) break;
    text = decoded;
  }
  return text.toLowerCase();
}

/**
 * A Kobo sync URL carries its secret as the path segment after /kobo: never logged, whatever the
 * spelling (/KOBO/..., //kobo/..., /kobo//..., /%6Bobo/..., /kobo%2F...): the first segment that is not
 * empty or a dot segment, read case-insensitively and percent-decoded, is `kobo`, and the next non-empty
 * segment is written `[secret]`.
 */
function redacted(path: string): string {
  // Without a percent sign nothing decodes, so a path whose lower case holds no `kobo` has no such segment.
  if (!path.includes('%') && !path.toLowerCase().includes('kobo')) return path;
  const parts = path.split(SEPARATOR); // segments at even indexes, separators between them
  let seen = false;
  for (let i = 0; i < parts.length; i += 2) {
    const segment = plain(parts[i]!);
    if (!seen) {
      if (SKIPPED.has(segment)) continue;
      if (segment !== 'kobo') return path;
      seen = true;
    } else if (!SKIPPED.has(segment)) {
      parts[i] = '[secret]';
      return parts.join('');
    }
  }
  return path;
}

/**
 * Paths no router answers may still carry a sync secret after some other spelling of `kobo`
 * (`/kobo;x/…`, `/kobo./…`, `/x/../kobo/…`, `/kobo\…`): such a path is logged, percent-decoded and in
 * lower case, only up to its first `kobo`.
 */
function redactedAnywhere(path: string): string {
  const strict = redacted(path);
  if (strict !== path) return strict;
  const text = plain(path);
  const at = text.indexOf('kobo');
  return at < 0 ? path : `${text.slice(0, at + 4)}[secret]`;
}

/**
 * Assigns a request id and logs one JSON line per request, with the client address (as TRUST_PROXY reads it): no headers, bodies or query strings.
 * The line is only put together when the logger writes `info` lines (LOG_LEVEL).
 */
export function requestLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    req.id = typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('X-Request-Id', req.id);
    const started = process.hrtime.bigint();
    res.on('close', () => {
      if (!logger.isLevelEnabled('info')) return;
      const route = (req.route as { path?: string } | undefined)?.path;
      logger.info(
        {
          req_id: req.id,
          method: req.method,
          address: req.ip ?? null,
          route: route ? redacted(`${req.baseUrl}${route}`) : null,
          path: printable(redactedAnywhere(req.originalUrl.split('?')[0]!).slice(0, 200)),
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
