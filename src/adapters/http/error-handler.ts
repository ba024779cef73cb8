import type { ErrorRequestHandler, Request, Response } from 'express';
import type { Logger } from 'pino';
import {
  AuthenticationError,
  ConflictError,
  DomainError,
  RangeNotSatisfiableError,
  RateLimitedError,
  ValidationError,
  type ErrorKind,
} from '../../domain/errors.js';

/** The one table from error kinds to HTTP statuses. */
const STATUS: Readonly<Record<ErrorKind, number>> = {
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unsupported: 415,
  range_not_satisfiable: 416,
  validation: 422,
  unprocessable: 422,
  rate_limited: 429,
  bad_gateway: 502,
  unavailable: 503,
};

const TITLES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  416: 'Range Not Satisfiable',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

/** body-parser and other library errors, recognised by their `type` and mapped to stable codes. */
const LIBRARY_ERRORS: Readonly<Record<string, { status: number; code: string; detail: string }>> = {
  'entity.parse.failed': { status: 400, code: 'malformed_json', detail: 'The request body is not valid JSON.' },
  'entity.too.large': { status: 413, code: 'payload_too_large', detail: 'The request body is too large.' },
  'encoding.unsupported': { status: 415, code: 'unsupported_media_type', detail: 'The content encoding is not supported.' },
  'charset.unsupported': { status: 415, code: 'unsupported_media_type', detail: 'The charset is not supported.' },
  'request.aborted': { status: 400, code: 'request_aborted', detail: 'The request was aborted.' },
  'request.size.invalid': { status: 400, code: 'malformed_request', detail: 'The request size does not match its length.' },
  'stream.encoding.set': { status: 500, code: 'internal_error', detail: 'Something went wrong.' },
};

export function sendProblem(res: Response, status: number, code: string, detail: string, extra: Record<string, unknown> = {}): void {
  if (res.headersSent) return;
  res
    .status(status)
    .type('application/problem+json')
    .send(JSON.stringify({ type: 'about:blank', title: TITLES[status] ?? 'Error', status, code, detail, ...extra }));
}

function domainExtra(error: DomainError): Record<string, unknown> {
  if (error instanceof ValidationError && error.errors.length > 0) return { errors: error.errors };
  if (error instanceof ConflictError) return { ...error.extra };
  return {};
}

/** Final error middleware: every error becomes problem+json; nothing internal leaks. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req: Request, res: Response, _next) => {
    if (error instanceof DomainError) {
      const status = STATUS[error.kind];
      if (error instanceof RateLimitedError) res.setHeader('Retry-After', String(error.retryAfterSeconds));
      if (error instanceof RangeNotSatisfiableError) res.setHeader('Content-Range', `bytes */${error.size}`);
      if (error instanceof AuthenticationError && error.code !== 'invalid_credentials') res.setHeader('WWW-Authenticate', 'Bearer');
      if (status >= 500) logger.warn({ req_id: req.id, code: error.code }, 'dependency error');
      return sendProblem(res, status, error.code, error.message, domainExtra(error));
    }
    const type = (error as { type?: unknown } | null)?.type;
    const known = typeof type === 'string' ? LIBRARY_ERRORS[type] : undefined;
    if (known && known.status < 500) return sendProblem(res, known.status, known.code, known.detail);
    const status = (error as { status?: unknown } | null)?.status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      return sendProblem(res, status, status === 400 ? 'malformed_request' : 'request_refused', 'The request could not be understood.');
    }
    logger.error({ req_id: req.id, err: error }, 'unhandled error');
    if (res.headersSent) return res.destroy();
    return sendProblem(res, 500, 'internal_error', 'Something went wrong.');
  };
}
