import { MongoServerError } from 'mongodb';
import type { ClientSession, Db } from 'mongodb';
import { storeUnavailable } from '../../domain/error-catalogue.js';

/** The one server-side time limit every read carries (ms); past it the read answers 503 store_unavailable. */
export const QUERY_MAX_TIME_MS = 5_000;

/**
 * How often a transaction starts again after a failure that is not a write conflict (a step-down, a
 * network error, an unacknowledged commit): each attempt first waits, in server selection, for a
 * writable primary (up to serverSelectionTimeoutMS), so three ride out an election; past them the
 * request answers 503 instead of being held for the driver's 120 seconds.
 */
export const TRANSACTION_FAILOVER_ATTEMPTS = 3;
const WRITE_CONFLICT = 112;

/**
 * Runs work in one transaction on its own session; the driver retries the whole callback on
 * TransientTransactionError (a write conflict, a step-down) and the commit on
 * UnknownTransactionCommitResult. Write conflicts (concurrent writers) are retried as long as the
 * driver does; other failures TRANSACTION_FAILOVER_ATTEMPTS times, then store_unavailable.
 * Every operation inside must be given the session.
 */
export function inTransaction<T>(db: Db, work: (session: ClientSession) => Promise<T>): Promise<T> {
  let attempts = 0;
  let failovers = 0;
  let lastError: unknown = null;
  return db.client.withSession((session) => session.withTransaction(async () => {
    if (attempts++ > 0 && !isWriteConflict(lastError) && ++failovers >= TRANSACTION_FAILOVER_ATTEMPTS) throw storeUnavailable();
    lastError = null;
    try {
      return await work(session);
    } catch (error) {
      lastError = error;
      throw error;
    }
  }));
}

const isWriteConflict = (error: unknown): boolean => error instanceof MongoServerError && error.code === WRITE_CONFLICT;

/** Whether the error is a duplicate key (code 11000) on exactly the index whose key holds these fields. */
export function isDuplicateKeyOn(error: unknown, fields: readonly string[]): error is MongoServerError {
  const keyPattern = duplicateKeyReport(error)?.keyPattern;
  if (keyPattern === undefined) return false;
  const keys = Object.keys(keyPattern);
  return keys.length === fields.length && fields.every((field) => keys.includes(field));
}

/** What the server reports of a duplicate key: the index's key (`keyPattern`) and the colliding values (`keyValue`, when sent). */
export interface DuplicateKeyReport {
  readonly keyPattern: Readonly<Record<string, unknown>>;
  readonly keyValue?: Readonly<Record<string, unknown>>;
}

/**
 * The key pattern and value of a duplicate key (code 11000), from the error or, for insertMany, its
 * first write error; undefined for anything else or a report without a key pattern. Never the message.
 */
export function duplicateKeyReport(error: unknown): DuplicateKeyReport | undefined {
  if (!(error instanceof MongoServerError) || error.code !== 11000) return undefined;
  const source = error.keyPattern !== undefined ? { keyPattern: error.keyPattern as unknown, keyValue: error.keyValue as unknown } : firstWriteError(error) ?? {};
  if (!isRecord(source.keyPattern)) return undefined;
  return isRecord(source.keyValue) ? { keyPattern: source.keyPattern, keyValue: source.keyValue } : { keyPattern: source.keyPattern };
}

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object';

/** insertMany reports a duplicate through its first write error, which holds the key pattern. */
function firstWriteError(error: MongoServerError): { keyPattern?: unknown; keyValue?: unknown } | undefined {
  const writeErrors: unknown = error.writeErrors;
  if (!Array.isArray(writeErrors)) return undefined;
  const first: unknown = writeErrors[0];
  if (first === null || typeof first !== 'object') return undefined;
  const raw = (first as { err?: unknown }).err ?? first;
  return raw !== null && typeof raw === 'object' ? raw as { keyPattern?: unknown; keyValue?: unknown } : undefined;
}
