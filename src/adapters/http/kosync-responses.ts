import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import express from 'express';
import { kosyncRegistrationClosed, payloadTooLarge } from '../../domain/error-catalogue.js';
import { DomainError, ValidationError } from '../../domain/errors.js';
import { unixSeconds, type SyncState } from '../../domain/kosync.js';
import { setRetryAfter, statusOf } from './error-handler.js';
import { malformedJson, unsupportedMediaType } from './http-errors.js';

/** The media type KOReader's kosync client asks for (its `Accept`); its JSON middleware decodes any body. */
export const KOSYNC_MEDIA_TYPE = 'application/vnd.koreader.v1+json';
const BODY_LIMIT_BYTES = 16 * 1024;
const REGISTRATION_CLOSED = kosyncRegistrationClosed().code;

/** Sends a kosync answer: JSON under KOReader's media type. */
export function sendKosync(res: Response, status: number, body: object): void {
  res.status(status).type(`${KOSYNC_MEDIA_TYPE}; charset=utf-8`).send(JSON.stringify(body));
}

/** The pull answer KOReader reads: every field of the position, `timestamp` in Unix seconds. */
export const presentSyncState = (s: SyncState) => ({
  document: s.document, percentage: s.percentage, progress: s.progress, device: s.device, device_id: s.deviceId, timestamp: unixSeconds(s.updatedAt),
});

const parseJson = express.json({ limit: BODY_LIMIT_BYTES, strict: true, type: 'application/json' });

/** A JSON body of at most 16 KB, its parse failures turned into the domain's errors. */
export const kosyncJsonBody: RequestHandler = (req, res, next) => {
  if (!req.is('application/json')) return next(unsupportedMediaType('application/json'));
  parseJson(req, res, (error?: unknown) => {
    const type = (error as { type?: unknown } | undefined)?.type;
    if (type === 'entity.parse.failed') return next(malformedJson());
    if (type === 'entity.too.large') return next(payloadTooLarge(BODY_LIMIT_BYTES));
    next(error);
  });
};

/**
 * Refusals as KOReader reads them: JSON with the `message` it shows. KOReader's api.json expects 402
 * for a refused registration and only 401 as a refusal of sign-in and sync, so a key without
 * `books:read` is 401 too; other errors keep their status. Anything unexpected goes to the app's handler.
 */
export const kosyncErrors: ErrorRequestHandler = (error: unknown, _req, res, next) => {
  if (!(error instanceof DomainError)) return next(error);
  let status = statusOf(error);
  if (error.code === REGISTRATION_CLOSED) status = 402;
  else if (status === 403) status = 401;
  setRetryAfter(res, error);
  const errors = error instanceof ValidationError && error.errors.length > 0 ? { errors: error.errors } : {};
  sendKosync(res, status, { code: error.code, message: error.message, ...errors });
};
