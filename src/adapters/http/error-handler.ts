import type { ErrorRequestHandler, Request, Response } from 'express';
import type { Logger } from 'pino';
import { invalidCredentials, payloadTooLarge } from '../../domain/error-catalogue.js';
import { AuthenticationError, ConflictError, DomainError, RangeNotSatisfiableError, RateLimitedError, ValidationError, type ErrorKind, type FieldError } from '../../domain/errors.js';
import { internalError, malformedJson, malformedRequest, requestAborted, requestRefused, unsupportedMediaType, type TransportProblem } from './http-errors.js';

const INVALID_CREDENTIALS = invalidCredentials().code;
const JSON_BODY = 'application/json';

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

/** body-parser and other library errors below 500, recognised by their `type`. */
const LIBRARY_ERRORS: Readonly<Record<string, (error: { limit?: unknown }) => DomainError>> = {
  'entity.parse.failed': () => malformedJson(),
  'entity.too.large': (error) => payloadTooLarge(Number(error.limit)),
  'encoding.unsupported': () => unsupportedMediaType(JSON_BODY),
  'charset.unsupported': () => unsupportedMediaType(JSON_BODY),
  'request.aborted': () => requestAborted(),
  'request.size.invalid': () => malformedRequest(),
};

/** The HTTP status of a domain error. */
export const statusOf = (error: DomainError): number => STATUS[error.kind];

/** Where a field error was found: the part the raising adapter named, else the body. */
const locationOf = (error: FieldError): string => ('location' in error && typeof error.location === 'string' ? error.location : 'body');

export function sendProblem(res: Response, status: number, code: string, detail: string, extra: Record<string, unknown> = {}): void {
  if (res.headersSent) return;
  res
    .status(status)
    .type('application/problem+json')
    .send(JSON.stringify({ type: 'about:blank', title: TITLES[status] ?? 'Error', status, code, detail, ...extra }));
}

function domainExtra(error: DomainError): Record<string, unknown> {
  if (error instanceof ValidationError && error.errors.length > 0) {
    return { errors: error.errors.map((e) => ({ location: locationOf(e), field: e.field, message: e.message })) };
  }
  if (error instanceof ConflictError) return { ...error.extra };
  return {};
}

/**
 * What an error raised under a route is to a client: a domain error (library errors below 500
 * translated), a transport refusal for another 4xx, or null for a fault of the service itself.
 */
export function knownErrorOf(error: unknown): DomainError | TransportProblem | null {
  const type = (error as { type?: unknown } | null)?.type;
  const library = typeof type === 'string' ? LIBRARY_ERRORS[type] : undefined;
  const status = (error as { status?: unknown } | null)?.status;
  if (library) return library(error as { limit?: unknown });
  if (error instanceof DomainError) return error;
  if (status === 400) return malformedRequest();
  return typeof status === 'number' && status > 400 && status < 500 ? requestRefused(status) : null;
}

/** Final error middleware: every error becomes problem+json; nothing internal leaks. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (raised: unknown, req: Request, res: Response, _next) => {
    const error = knownErrorOf(raised);
    if (error instanceof DomainError) {
      const httpStatus = statusOf(error);
      if (error instanceof RateLimitedError) res.setHeader('Retry-After', String(error.retryAfterSeconds));
      if (error instanceof RangeNotSatisfiableError) res.setHeader('Content-Range', `bytes */${error.size}`);
      if (error instanceof AuthenticationError && error.code !== INVALID_CREDENTIALS) res.setHeader('WWW-Authenticate', 'Bearer');
      if (httpStatus >= 500) logger.warn({ req_id: req.id, code: error.code }, 'dependency error');
      return sendProblem(res, httpStatus, error.code, error.message, domainExtra(error));
    }
    if (error) return sendProblem(res, error.status, error.code, error.detail);
    logger.error({ req_id: req.id, err: raised }, 'unhandled error');
    if (res.headersSent) return res.destroy();
    const internal = internalError();
    return sendProblem(res, internal.status, internal.code, internal.detail);
  };
}
