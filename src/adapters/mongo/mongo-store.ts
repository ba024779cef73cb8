import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Document } from 'mongodb';
import type { HealthCheck, HousekeepingStep } from '../../application/ports.js';
import { storeUnavailable } from '../../domain/error-catalogue.js';
import { GridFsBlobStore } from './grid-fs-blob-store.js';
import { MongoApiKeyRepository } from './mongo-api-key-repository.js';
import { MongoBookRepository } from './mongo-book-repository.js';
import { MongoChangeFeed } from './mongo-change-feed.js';
import { backfillChangeFeed } from './mongo-change-feed-backfill.js';
import { MongoKoboDeviceRepository } from './mongo-kobo-device-repository.js';
import { MongoDatabase } from './mongo-database.js';
import { MongoKnownAddressRepository } from './mongo-known-address-repository.js';
import { MongoLease } from './mongo-lease.js';
import { backfillSearchTokens, migrateLibraryIndexes } from './mongo-library-migration.js';
import { MongoLoginThrottleRepository } from './mongo-login-throttle-repository.js';
import { MongoOneTimeCodeRepository } from './mongo-one-time-code-repository.js';
import { MongoBookDigestRepository } from './mongo-book-digest-repository.js';
import { MongoProgressRepository } from './mongo-progress-repository.js';
import { MongoRateCounter } from './mongo-rate-counter.js';
import { MongoShelfRepository } from './mongo-shelf-repository.js';
import { MongoSyncDocumentRepository } from './mongo-sync-document-repository.js';
import { rekeyShelfNames } from './mongo-shelf-name-keys.js';
import { MongoTokenRevocationRepository } from './mongo-token-revocation-repository.js';
import { MongoUserRepository } from './mongo-user-repository.js';

/** Every MongoDB repository and the GridFS blob store over one client. */
export interface MongoStore {
  readonly database: MongoDatabase;
  readonly users: MongoUserRepository;
  readonly revocations: MongoTokenRevocationRepository;
  readonly throttle: MongoLoginThrottleRepository;
  readonly books: MongoBookRepository;
  readonly shelves: MongoShelfRepository;
  readonly oneTimeCodes: MongoOneTimeCodeRepository;
  readonly apiKeys: MongoApiKeyRepository;
  readonly progress: MongoProgressRepository;
  readonly digests: MongoBookDigestRepository;
  readonly syncDocuments: MongoSyncDocumentRepository;
  readonly knownAddresses: MongoKnownAddressRepository;
  readonly koboDevices: MongoKoboDeviceRepository;
  readonly changes: MongoChangeFeed;
  readonly health: HealthCheck;
  readonly blobs: GridFsBlobStore;
  /** Shared request and registration budgets. */
  readonly rateCounter: MongoRateCounter;
  /** Start-up housekeeping, one instance at a time. */
  readonly housekeepingLease: MongoLease;
  /** This store's own housekeeping: the search-gram backfill, then the orphan-chunk sweep. */
  readonly housekeeping: readonly HousekeepingStep[];
  close(): Promise<void>;
}

/** How long the housekeeping lease lasts unless renewed (every third of it while the sweep runs). */
const HOUSEKEEPING_LEASE_MS = 60_000;

/**
 * Ready when the node this client writes through can take majority writes: `hello` names it the
 * writable primary of a replica set. A primary that loses its majority steps down, so a ping (which a
 * secondary or an isolated node still answers) is not enough.
 */
export class MongoHealthCheck implements HealthCheck {
  constructor(private readonly database: MongoDatabase) {}

  async ping(): Promise<void> {
    let hello: Document;
    try {
      hello = await this.database.db.command({ hello: 1 }, { readPreference: 'primary', signal: AbortSignal.timeout(2_000) });
    } catch {
      throw storeUnavailable();
    }
    if (!canTakeMajorityWrites(hello)) throw storeUnavailable();
  }
}

/** Whether a `hello` reply comes from the writable primary of a replica set (or a mongos, which routes to one). */
export function canTakeMajorityWrites(hello: Document): boolean {
  if (hello.msg === 'isdbgrid') return true;
  return hello.isWritablePrimary === true && typeof hello.setName === 'string';
}

/**
 * Connects to `url` (`mongodb://` or `mongodb+srv://`, database name in the path), brings the indexes
 * and the schema record up to date, rekeys shelf names, builds the store. Work that grows with the
 * library (the search-gram backfill, the sweeps) is left to housekeeping, after listening.
 */
export async function createMongoStore(url: string, options: { serverSelectionTimeoutMS?: number } = {}): Promise<MongoStore> {
  const database = await MongoDatabase.connect(url, options);
  try {
    await migrateLibraryIndexes(database.db);
    await database.ensureIndexes();
    await rekeyShelfNames(database.db);
  } catch (error) {
    await database.close();
    throw error;
  }
  const { db } = database;
  const blobs = new GridFsBlobStore(db);
  const changes = new MongoChangeFeed(db);
  return {
    database,
    users: new MongoUserRepository(db),
    revocations: new MongoTokenRevocationRepository(db),
    throttle: new MongoLoginThrottleRepository(db),
    books: new MongoBookRepository(db),
    shelves: new MongoShelfRepository(db),
    oneTimeCodes: new MongoOneTimeCodeRepository(db),
    apiKeys: new MongoApiKeyRepository(db),
    progress: new MongoProgressRepository(db),
    digests: new MongoBookDigestRepository(db),
    syncDocuments: new MongoSyncDocumentRepository(db),
    knownAddresses: new MongoKnownAddressRepository(db),
    koboDevices: new MongoKoboDeviceRepository(db),
    changes,
    health: new MongoHealthCheck(database),
    blobs,
    rateCounter: new MongoRateCounter(db),
    housekeepingLease: new MongoLease(db, 'housekeeping', `${hostname()}:${process.pid}:${randomUUID()}`, HOUSEKEEPING_LEASE_MS),
    housekeeping: [
      { name: 'search grams backfilled', run: async () => ({ booksMigrated: await backfillSearchTokens(db) }) },
      { name: 'orphan chunks swept', run: async () => ({ orphanChunksRemoved: await blobs.removeOrphanChunks() }) },
      { name: 'change feed backfilled', run: () => backfillChangeFeed(db, changes) },
    ],
    close: () => database.close(),
  };
}
