import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import express from 'express';
import type { Logger } from 'pino';
import { kosyncRegistrationClosed, payloadTooLarge } from '../../domain/error-catalogue.js';
import { DomainError, RateLimitedError, ValidationError } from '../../domain/errors.js';
import { unixSeconds, type SyncState } from '../../domain/kosync.js';
import { readerMessage } from './kosync-messages.js';

/** A refusal of the HTTP transport's own (adapters/http/http-errors.ts), outside the domain's error kinds. */
export interface TransportRefusal {
  readonly status: number;
  readonly code: string;
}

/**
 * What /kosync takes from the HTTP transport, handed in by bootstrap (adapters never import each other):
 * how it reads an error (the one kind → status table, adapters/http/error-handler.ts) and the codes only
 * the transport builds (adapters/http/http-errors.ts).
 */
export interface KosyncTransport {
  /** A domain error (library errors below 500 translated), a transport refusal, or null for a fault of the service. */
  readonly knownErrorOf: (raised: unknown) => DomainError | TransportRefusal | null;
  readonly statusOf: (error: DomainError) => number;
  readonly setRetryAfter: (res: Response, error: DomainError) => void;
  /** What failed underneath a dependency error, for the log (never its message). */
  readonly causeOf: (error: DomainError) => object;
  readonly internalError: () => TransportRefusal;
  readonly malformedJson: () => DomainError;
  readonly unsupportedMediaType: (expected: string) => DomainError;
  readonly routeNotFound: (method: string, path: string) => DomainError;
  readonly methodNotAllowed: (method: string) => TransportRefusal;
}

/**
 * The one media type every kosync answer carries, with no parameter: KOReader 2025.04 decodes a body
 * only under exactly `application/json`, 2025.08 and 2025.10 only under `application/json` itself
 * (with parameters), and 2026 under any `application/…+json` (koreader-base, thirdparty/lua-Spore).
 */
export const KOSYNC_CONTENT_TYPE = 'application/json';
const BODY_LIMIT_BYTES = 16 * 1024;
const REGISTRATION_CLOSED = kosyncRegistrationClosed().code;

/** Sends a kosync answer: JSON under exactly `application/json` (Express would add `; charset=utf-8` to a string body). */
export function sendKosync(res: Response, status: number, body: object): void {
  if (res.headersSent) return;
  res.status(status).setHeader('Content-Type', KOSYNC_CONTENT_TYPE);
  res.send(Buffer.from(JSON.stringify(body), 'utf8'));
}

/** The pull answer KOReader reads: every field of the position, `timestamp` in Unix seconds. */
export const presentSyncState = (s: SyncState) => ({
  document: s.document, percentage: s.percentage, progress: s.progress, device: s.device, device_id: s.deviceId, timestamp: unixSeconds(s.updatedAt),
});

const parseJson = express.json({ limit: BODY_LIMIT_BYTES, strict: true, type: 'application/json' });

/** A JSON body of at most 16 KB, its parse failures turned into the domain's errors. */
export function kosyncJsonBody(transport: KosyncTransport): RequestHandler {
  return (req, res, next) => {
    if (!req.is('application/json')) return next(transport.unsupportedMediaType('application/json'));
    parseJson(req, res, (error?: unknown) => {
      const type = (error as { type?: unknown } | undefined)?.type;
      if (type === 'entity.parse.failed') return next(transport.malformedJson());
      if (type === 'entity.too.large') return next(payloadTooLarge(BODY_LIMIT_BYTES));
      next(error);
    });
  };
}

/** A refusal as KOReader shows it: `{code, message}`, the message worded for the person holding the e-reader. */
export function sendKosyncRefusal(res: Response, status: number, code: string, extra: Record<string, unknown> = {}, retryAfterSeconds?: number): void {
  sendKosync(res, status, { code, message: readerMessage(code, retryAfterSeconds), ...extra });
}

/**
 * Every error under /kosync as KOReader reads it. KOReader's api.json expects 402 for a refused
 * registration and only 401 as a refusal of sign-in and sync, so a key without `books:read` is 401
 * too; other errors keep their status. A fault of the service is logged and answered 500, still JSON.
 */
export function kosyncErrors(logger: Logger, transport: KosyncTransport): ErrorRequestHandler {
  return (raised: unknown, req, res, _next) => {
    const error = transport.knownErrorOf(raised);
    if (!(error instanceof DomainError)) {
      if (error === null) logger.error({ req_id: req.id, err: raised }, 'unhandled error');
      if (error === null && res.headersSent) return res.destroy();
      const problem = error ?? transport.internalError();
      return sendKosyncRefusal(res, problem.status, problem.code);
    }
    let status = transport.statusOf(error);
    if (error.code === REGISTRATION_CLOSED) status = 402;
    else if (status === 403) status = 401;
    if (status >= 500) logger.warn({ req_id: req.id, code: error.code, ...transport.causeOf(error) }, 'dependency error');
    transport.setRetryAfter(res, error);
    const retryAfter = error instanceof RateLimitedError ? error.retryAfterSeconds : undefined;
    const errors = error instanceof ValidationError && error.errors.length > 0 ? { errors: error.errors } : {};
    sendKosyncRefusal(res, status, error.code, errors, retryAfter);
  };
}
