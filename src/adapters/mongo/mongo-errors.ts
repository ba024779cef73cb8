import {
  MongoClientClosedError, MongoDriverError, MongoError, MongoErrorLabel, MongoNetworkError, MongoNotConnectedError,
  MongoOperationTimeoutError, MongoServerClosedError, MongoServerSelectionError, MongoStalePrimaryError, MongoTopologyClosedError,
} from 'mongodb';
import { storeUnavailable } from '../../domain/error-catalogue.js';
import { DomainError } from '../../domain/errors.js';

/**
 * Server error codes that mean "not now": a failover (no writable primary, a step-down interrupting
 * the operation), a node shutting down, a majority that did not acknowledge in time, or a time limit.
 * The same request may succeed a few seconds later, so each answers 503 `store_unavailable`.
 */
export const OUTAGE_CODES: Readonly<Record<number, string>> = {
  6: 'HostUnreachable',
  7: 'HostNotFound',
  24: 'LockTimeout',
  43: 'CursorNotFound',
  50: 'MaxTimeMSExpired',
  64: 'WriteConcernFailed',
  89: 'NetworkTimeout',
  91: 'ShutdownInProgress',
  112: 'WriteConflict',
  133: 'FailedToSatisfyReadPreference',
  134: 'ReadConcernMajorityNotAvailableYet',
  189: 'PrimarySteppedDown',
  202: 'NetworkInterfaceExceededTimeLimit',
  262: 'ExceededTimeLimit',
  9001: 'SocketException',
  10058: 'LegacyNotPrimary',
  10107: 'NotWritablePrimary',
  11600: 'InterruptedAtShutdown',
  11602: 'InterruptedDueToReplStateChange',
  13435: 'NotPrimaryNoSecondaryOk',
  13436: 'NotPrimaryOrSecondary',
};

/** Labels the server or the driver puts on an error that a retry may get past. */
export const OUTAGE_LABELS: readonly string[] = [
  MongoErrorLabel.RetryableWriteError,
  MongoErrorLabel.TransientTransactionError,
  MongoErrorLabel.UnknownTransactionCommitResult,
  MongoErrorLabel.ResetPool,
  MongoErrorLabel.PoolRequestedRetry,
  MongoErrorLabel.InterruptInUseConnections,
  MongoErrorLabel.SystemOverloadedError,
  MongoErrorLabel.RetryableError,
];

/**
 * The driver's error classes of an unreachable or overloaded deployment: no server selectable in time,
 * a network failure or a cleared pool (a MongoNetworkError subclass), an operation timeout, a primary
 * found stale, the client or a server closed (shutting down). The wait-queue timeout's class is not
 * exported by the driver; its name (the class's own `name` getter) identifies it.
 */
const OUTAGE_CLASSES = [MongoServerSelectionError, MongoNetworkError, MongoOperationTimeoutError, MongoStalePrimaryError,
  MongoTopologyClosedError, MongoNotConnectedError, MongoClientClosedError, MongoServerClosedError] as const;
const WAIT_QUEUE_TIMEOUT = 'MongoWaitQueueTimeoutError';

/** The numeric code of a server error (a write-concern error's own code when the reply carried one). */
function codeOf(error: MongoError): number | undefined {
  const concern = (error as { result?: { writeConcernError?: { code?: unknown } } }).result?.writeConcernError?.code;
  const code = typeof concern === 'number' ? concern : Number(error.code);
  return Number.isInteger(code) ? code : undefined;
}

/**
 * Whether a driver error means the store cannot answer now (failover, shutdown, network, pool or time
 * limits), decided by the error's class, code and labels, never by its message text.
 */
export function isStoreOutage(error: unknown): boolean {
  if (!(error instanceof MongoError)) return false;
  if (OUTAGE_CLASSES.some((kind) => error instanceof kind)) return true;
  if (error instanceof MongoDriverError && error.name === WAIT_QUEUE_TIMEOUT) return true;
  if (OUTAGE_LABELS.some((label) => error.hasErrorLabel(label))) return true;
  const code = codeOf(error);
  return code !== undefined && code in OUTAGE_CODES;
}

/** A store outage as the domain's `store_unavailable` (503 with Retry-After), the driver's error kept as its cause; anything else as it is. */
export function storeErrorOf(error: unknown): unknown {
  if (error instanceof DomainError || !isStoreOutage(error)) return error;
  return Object.assign(storeUnavailable(), { cause: error });
}

const isAsyncIterable = (value: unknown): value is AsyncIterable<unknown> =>
  value !== null && typeof value === 'object' && typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function' &&
  !('pipe' in value);

async function* mappedIterable<T>(source: AsyncIterable<T>): AsyncIterable<T> {
  try {
    yield* source;
  } catch (error) {
    throw storeErrorOf(error);
  }
}

/**
 * The one place where the MongoDB adapter turns driver failures into the domain's error: every method
 * of the adapter, its promise's rejection (and a key listing's iteration) passed through storeErrorOf.
 * Wraps whole repositories, outside their transactions, so the driver's own retries (retryable writes,
 * `inTransaction`'s retries on TransientTransactionError) still see the labelled driver error first.
 */
export function mappingStoreErrors<T extends object>(adapter: T): T {
  return new Proxy(adapter, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]): unknown => {
        let result: unknown;
        try {
          result = (value as (...a: unknown[]) => unknown).apply(target, args);
        } catch (error) {
          throw storeErrorOf(error);
        }
        if (result instanceof Promise) return result.catch((error: unknown) => Promise.reject(storeErrorOf(error)));
        return isAsyncIterable(result) ? mappedIterable(result) : result;
      };
    },
  });
}

/**
 * Runs a write the driver does not retry (a multi-document delete: retryable writes cover single-document
 * writes only) once more after a store outage, as the driver retries a retryable write once: the second
 * attempt first waits, in server selection, for a writable primary. Only for idempotent writes (a delete
 * by filter removes what the first attempt left); a second failure is thrown as it is.
 */
export async function rerunOnce<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (!isStoreOutage(error)) throw error;
    return write();
  }
}
