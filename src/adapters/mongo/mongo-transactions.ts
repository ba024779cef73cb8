import { MongoServerError } from 'mongodb';
import type { ClientSession, Db } from 'mongodb';
import { storeUnavailable } from '../../domain/error-catalogue.js';

/** The one server-side time limit every query of the library collections carries (ms). */
export const QUERY_MAX_TIME_MS = 5_000;

/**
 * Runs work in one transaction on its own session; the driver retries the whole callback on
 * TransientTransactionError (a write conflict, a step-down) and the commit on
 * UnknownTransactionCommitResult. Every operation inside must be given the session.
 */
export function inTransaction<T>(db: Db, work: (session: ClientSession) => Promise<T>): Promise<T> {
  return db.client.withSession((session) => session.withTransaction(() => work(session)));
}

/** Whether the error is a duplicate key (code 11000) on exactly the index whose key holds these fields. */
export function isDuplicateKeyOn(error: unknown, fields: readonly string[]): error is MongoServerError {
  if (!(error instanceof MongoServerError) || error.code !== 11000) return false;
  const keyPattern: unknown = error.keyPattern ?? firstWriteError(error)?.keyPattern;
  if (keyPattern === null || typeof keyPattern !== 'object') return false;
  const keys = Object.keys(keyPattern);
  return keys.length === fields.length && fields.every((field) => keys.includes(field));
}

/** insertMany reports a duplicate through its first write error, which holds the key pattern. */
function firstWriteError(error: MongoServerError): { keyPattern?: unknown } | undefined {
  const writeErrors: unknown = error.writeErrors;
  if (!Array.isArray(writeErrors)) return undefined;
  const first: unknown = writeErrors[0];
  if (first === null || typeof first !== 'object') return undefined;
  const raw = (first as { err?: unknown }).err ?? first;
  return raw !== null && typeof raw === 'object' ? raw as { keyPattern?: unknown } : undefined;
}

/** Turns a query stopped by its `maxTimeMS` (code 50, MaxTimeMSExpired) into store_unavailable (503); anything else is thrown as is. */
export function rethrowTimeLimit(error: unknown): never {
  if (error instanceof MongoServerError && error.code === 50) throw storeUnavailable();
  throw error;
}
