import { MongoError, MongoErrorLabel, MongoServerError } from 'mongodb';
import type { ClientSession, Db } from 'mongodb';
import { storeUnavailable } from '../../domain/error-catalogue.js';

/** The one server-side time limit every read carries (ms); past it the read answers 503 store_unavailable. */
export const QUERY_MAX_TIME_MS = 5_000;

/**
 * How often a transaction is tried again after a failure that is not contention (a step-down, a
 * network error, a commit whose outcome is unknown): each attempt first waits, in server selection, for a
 * writable primary (up to serverSelectionTimeoutMS), so three ride out an election; past them the
 * request answers 503 instead of being held for the driver's 120 seconds.
 */
export const TRANSACTION_FAILOVER_ATTEMPTS = 3;
/** How long contention (concurrent writers) is retried: as long as the driver's withTransaction does. */
const CONTENTION_RETRY_MS = 120_000;
/** What concurrent writers cause, not an outage: WriteConflict, LockTimeout (a lock not granted in time), LockBusy. */
const CONTENTION_CODES: ReadonlySet<unknown> = new Set([112, 24, 46]);
const MAX_TIME_MS_EXPIRED = 50;

/**
 * Runs work in one transaction on its own session, as the driver's `withTransaction` does (the whole
 * work again on TransientTransactionError, the commit again on UnknownTransactionCommitResult, with the
 * same backoff), but with a bound on failovers that `withTransaction` lacks: its commit retry loops,
 * without a pause, for 120 seconds. A commit that met a step-down was retried in that loop until the
 * election ended, and against a fault that fails at once it held the event loop for the whole 120 s.
 * Contention (write conflicts, lock timeouts) is retried for CONTENTION_RETRY_MS; other failures, of the
 * work or of the commit, TRANSACTION_FAILOVER_ATTEMPTS times in all, then store_unavailable (503). That
 * answer may follow a commit whose outcome stayed unknown: the write may have been applied, as a client
 * retrying learns.
 * Every operation inside must be given the session.
 */
export function inTransaction<T>(db: Db, work: (session: ClientSession) => Promise<T>): Promise<T> {
  return db.client.withSession(async (session) => {
    const deadline = performance.now() + CONTENTION_RETRY_MS;
    let failovers = 0;
    /** Whether a failure may be retried once more; counts it against its bound. */
    const mayRetry = (error: unknown): boolean => (isContention(error) ? performance.now() < deadline : ++failovers < TRANSACTION_FAILOVER_ATTEMPTS);
    for (let attempt = 0; ; attempt++) {
      if (attempt > 0) await backoff(attempt);
      session.startTransaction();
      let result: T;
      try {
        result = await work(session);
      } catch (error) {
        if (session.inTransaction()) await session.abortTransaction();
        if (!hasLabel(error, MongoErrorLabel.TransientTransactionError)) throw error;
        if (!mayRetry(error)) throw storeUnavailable();
        continue;
      }
      for (;;) {
        try {
          await session.commitTransaction();
          return result;
        } catch (error) {
          const unknownOutcome = hasLabel(error, MongoErrorLabel.UnknownTransactionCommitResult) && codeOf(error) !== MAX_TIME_MS_EXPIRED;
          if (!unknownOutcome && !hasLabel(error, MongoErrorLabel.TransientTransactionError)) throw error;
          if (!mayRetry(error)) throw storeUnavailable();
          // The driver commits again with a majority write concern; a transient failure runs the work again.
          if (!unknownOutcome) break;
        }
      }
    }
  });
}

/** The driver's withTransaction backoff: a random share of 5 ms × 1.5^attempt, at most 500 ms. */
const backoff = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(5 * 1.5 ** attempt, 500)));

const hasLabel = (error: unknown, label: string): boolean => error instanceof MongoError && error.hasErrorLabel(label);
const codeOf = (error: unknown): unknown => (error instanceof MongoServerError ? error.code : undefined);

const isContention = (error: unknown): boolean => error instanceof MongoServerError && CONTENTION_CODES.has(error.code);

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
