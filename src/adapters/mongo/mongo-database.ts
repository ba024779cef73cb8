import { MongoClient } from 'mongodb';
import type { Db, Document, IndexDescription, MongoClientOptions, MongoServerError } from 'mongodb';
import { ConflictError } from '../../domain/errors.js';
import { LIBRARY_INDEXES } from './mongo-library-indexes.js';
import { BOOK_DIGEST_INDEXES } from './mongo-book-digest-repository.js';
import { PROGRESS_INDEXES } from './mongo-progress-indexes.js';
import { SYNC_DOCUMENT_INDEXES } from './mongo-sync-document-indexes.js';
import { CHANGE_FEED_INDEXES } from './mongo-change-feed.js';
import { KOBO_ARCHIVED_INDEXES, KOBO_DEVICE_INDEXES } from './mongo-kobo-device-repository.js';
import { HOUSEKEEPING_INDEXES } from './mongo-housekeeping-indexes.js';
import { KNOWN_ADDRESS_INDEXES } from './mongo-known-address-indexes.js';
import { duplicateKeyReport, QUERY_MAX_TIME_MS } from './mongo-transactions.js';

/** The collections of one Stacks database and their indexes (created at start, idempotently). */
export const MONGO_INDEXES: Readonly<Record<string, IndexDescription[]>> = {
  users: [
    { key: { usernameKey: 1 }, name: 'users_username_key', unique: true },
    { key: { emailKey: 1 }, name: 'users_email_key', unique: true },
    { key: { oidcIssuer: 1, oidcSubject: 1 }, name: 'users_oidc_identity', unique: true,
      partialFilterExpression: { oidcIssuer: { $type: 'string' } } },
    { key: { createdAt: 1, _id: 1 }, name: 'users_created' },
  ],
  revocations: [{ key: { expiresAt: 1 }, name: 'revocations_ttl', expireAfterSeconds: 0 }],
  throttles: [{ key: { expiresAt: 1 }, name: 'throttles_ttl', expireAfterSeconds: 0 }],
  api_keys: [
    { key: { lookup: 1 }, name: 'api_keys_lookup', unique: true },
    { key: { ownerId: 1, createdAt: -1, _id: 1 }, name: 'api_keys_owner' },
  ],
  one_time_codes: [{ key: { expiresAt: 1 }, name: 'one_time_codes_ttl', expireAfterSeconds: 0 }],
  ...LIBRARY_INDEXES,
  progress: PROGRESS_INDEXES,
  book_digests: BOOK_DIGEST_INDEXES,
  sync_documents: SYNC_DOCUMENT_INDEXES,
  known_addresses: KNOWN_ADDRESS_INDEXES,
  kobo_devices: KOBO_DEVICE_INDEXES,
  kobo_archived: KOBO_ARCHIVED_INDEXES,
  change_feed: CHANGE_FEED_INDEXES,
};

/** How long a majority write may wait for its acknowledgement before failing (instead of hanging). */
export const MAJORITY_WRITE_TIMEOUT_MS = 10_000;
/** How long one operation may wait on its socket before the driver gives up on it. */
export const SOCKET_TIMEOUT_MS = 30_000;
/**
 * How long an operation may wait for a pooled connection (`waitQueueTimeoutMS`) when every one of the
 * pool's `maxPoolSize` connections is busy, before it fails with a wait-queue timeout (503); the URL's
 * own `waitQueueTimeoutMS` takes precedence. The driver's default, 0, waits for ever.
 */
export const WAIT_QUEUE_TIMEOUT_MS = 2_000;

/** The store is unusable as configured (a standalone server, a newer schema); start-up stops with this message. */
export class MongoDeploymentError extends Error {}

/**
 * Refuses a standalone server (its `hello` has no `setName`): majority concerns, retryable writes and
 * transactions need a replica set. A mongos (`msg: 'isdbgrid'`) fronts replica-set shards and passes.
 */
export function assertReplicaSet(hello: Document): void {
  if ((typeof hello.setName === 'string' && hello.setName !== '') || hello.msg === 'isdbgrid') return;
  throw new MongoDeploymentError(
    'DATABASE_URL points at a standalone MongoDB server: MongoDB must be a replica set (a one-member set is fine: ' +
      'start mongod with --replSet rs0, run rs.initiate() once, and add ?replicaSet=rs0 to DATABASE_URL)',
  );
}

/** The client options Stacks sets; `socketTimeoutMS` differs for the maintenance client (index builds, backfills). */
function clientOptions(url: string, socketTimeoutMS: number, serverSelectionTimeoutMS: number): MongoClientOptions {
  const query = new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
  const has = (option: string) => [...query.keys()].some((key) => key.toLowerCase() === option.toLowerCase());
  return {
    writeConcern: { w: 'majority', wtimeoutMS: MAJORITY_WRITE_TIMEOUT_MS },
    readConcern: { level: 'majority' },
    retryWrites: true,
    retryReads: true,
    serverSelectionTimeoutMS,
    socketTimeoutMS,
    ...(has('waitQueueTimeoutMS') ? {} : { waitQueueTimeoutMS: WAIT_QUEUE_TIMEOUT_MS }),
    appName: 'stacks',
  };
}

/**
 * One MongoClient with majority write (bounded by wtimeout) and read concerns and retryable writes;
 * every document keeps the domain id (a string) as `_id`. The driver in use ignores `timeoutMS`, so
 * each operation is bounded by `socketTimeoutMS`, the write concern's `wtimeoutMS`, `maxTimeMS` on
 * reads and `waitQueueTimeoutMS` on pool waits. Housekeeping gets a second client without a socket
 * timeout (an index build on a large collection outlasts 30 s), opened on first use.
 */
export class MongoDatabase {
  private maintenanceClient: Promise<MongoClient> | undefined;

  private constructor(
    readonly client: MongoClient,
    readonly db: Db,
    private readonly url: string,
    private readonly serverSelectionTimeoutMS: number,
  ) {}

  /** Connects and refuses anything but a replica set; the database name comes from the URL path. */
  static async connect(url: string, options: { serverSelectionTimeoutMS?: number } = {}): Promise<MongoDatabase> {
    const selection = options.serverSelectionTimeoutMS ?? 10_000;
    const client = new MongoClient(url, clientOptions(url, SOCKET_TIMEOUT_MS, selection));
    await client.connect();
    try {
      assertReplicaSet(await client.db('admin').command({ hello: 1 }));
    } catch (error) {
      await client.close();
      throw error;
    }
    return new MongoDatabase(client, client.db(), url, selection);
  }

  /** The same database through the maintenance client: no socket timeout, for housekeeping's long commands. */
  async maintenance(): Promise<Db> {
    this.maintenanceClient ??= new MongoClient(this.url, clientOptions(this.url, 0, this.serverSelectionTimeoutMS)).connect();
    return (await this.maintenanceClient).db();
  }

  async close(): Promise<void> {
    const maintenance = this.maintenanceClient;
    this.maintenanceClient = undefined;
    await Promise.all([this.client.close(), maintenance?.then((c) => c.close(), () => undefined)]);
  }
}

/** The declared key of a named index (`_id_` included), from every index Stacks creates. */
function declaredKey(index: string): Document | undefined {
  if (index === '_id_') return { _id: 1 };
  for (const indexes of Object.values({ ...MONGO_INDEXES, ...HOUSEKEEPING_INDEXES })) {
    const found = indexes.find((i) => i.name === index);
    if (found) return found.key as Document;
  }
  return undefined;
}

/** Same fields in the same order: the `keyPattern` a duplicate-key error reports against an index's key. */
function sameKeyPattern(reported: Readonly<Record<string, unknown>>, declared: Document): boolean {
  return Object.keys(reported).join('\0') === Object.keys(declared).join('\0');
}

/**
 * Whether the error is a duplicate key (code 11000) on one of the named indexes, matched by the
 * `keyPattern` the server reports (never by the message text, whose wording is not a contract).
 */
export function isDuplicateKey(error: unknown, ...indexes: [string, ...string[]]): error is MongoServerError {
  const reported = duplicateKeyReport(error);
  if (!reported) return false;
  return indexes.some((index) => {
    const declared = declaredKey(index);
    return declared !== undefined && sameKeyPattern(reported.keyPattern, declared);
  });
}

/**
 * Whether the error is a duplicate `_id` (code 11000, `keyPattern` `{_id: 1}`) for this very id: the
 * `keyValue` the server reports must be it (a report without `keyValue` is judged by the pattern alone).
 */
export function isDuplicateId(error: unknown, id: unknown): error is MongoServerError {
  const reported = duplicateKeyReport(error);
  if (!reported || !sameKeyPattern(reported.keyPattern, { _id: 1 })) return false;
  return reported.keyValue === undefined || reported.keyValue._id === id;
}

/** Maps a duplicate key to the domain's conflict via the index whose key it reports; anything else passes through. */
export function conflictOrSame(error: unknown, byIndex: Readonly<Record<string, () => ConflictError>>): unknown {
  for (const [index, conflict] of Object.entries(byIndex)) {
    if (isDuplicateKey(error, index)) return conflict();
  }
  return error;
}

/**
 * Read options for a read that must see every write the current primary applied: the read that follows
 * a duplicate key (the winner's write is on the primary but may not be majority-committed yet, and a
 * majority read, a snapshot at the majority commit point, can miss it), and the token checks
 * (revocation, token version): a logout acknowledged by a majority is on any primary elected after it,
 * but right after an election the new primary's majority snapshot can still predate it. A local read on
 * the primary sees it; what it may also see, a write later rolled back, only ever refuses a token.
 */
export const READ_LATEST_ON_PRIMARY = { readPreference: 'primary', readConcern: { level: 'local' }, maxTimeMS: QUERY_MAX_TIME_MS } as const;

/** Escapes every regular-expression metacharacter so user text matches literally; a NUL (which the server refuses in a pattern) as `\x00`. */
export function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&').replaceAll('\0', '\\x00');
}
