import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { HousekeepingLeases, HousekeepingStep } from '../../application/ports.js';
import type { StoreLimits } from '../../domain/shelf-rules.js';
import { GridFsBlobStore } from './grid-fs-blob-store.js';
import { MongoApiKeyRepository } from './mongo-api-key-repository.js';
import { MongoBookRepository } from './mongo-book-repository.js';
import { MongoChangeFeed } from './mongo-change-feed.js';
import { backfillChangeFeed } from './mongo-change-feed-backfill.js';
import { MongoKoboDeviceRepository } from './mongo-kobo-device-repository.js';
import { MongoDatabase } from './mongo-database.js';
import { mappingStoreErrors } from './mongo-errors.js';
import { MongoHealthCheck } from './mongo-health.js';
import { bringIndexesUpToDate } from './mongo-index-layout.js';
import { MongoKnownAddressRepository } from './mongo-known-address-repository.js';
import { MongoLease } from './mongo-lease.js';
import { backfillSearchTokens } from './mongo-library-migration.js';
import { MongoLoginThrottleRepository } from './mongo-login-throttle-repository.js';
import { MongoOneTimeCodeRepository } from './mongo-one-time-code-repository.js';
import { MongoBookDigestRepository } from './mongo-book-digest-repository.js';
import { MongoProgressRepository } from './mongo-progress-repository.js';
import { MongoRateCounter } from './mongo-rate-counter.js';
import { openSchema } from './mongo-schema.js';
import { MongoShelfRepository } from './mongo-shelf-repository.js';
import { MongoSyncDocumentRepository } from './mongo-sync-document-repository.js';
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
  readonly health: MongoHealthCheck;
  readonly blobs: GridFsBlobStore;
  /** Shared request and registration budgets. */
  readonly rateCounter: MongoRateCounter;
  /** Each housekeeping step on one instance at a time. */
  readonly housekeepingLeases: HousekeepingLeases;
  /** This store's own housekeeping: the index layout, the search-gram backfill, the orphan-chunk sweep, the change-feed backfill. */
  readonly housekeeping: readonly HousekeepingStep[];
  close(): Promise<void>;
}

/** How long a housekeeping step's lease lasts unless renewed (every third of it while the step runs). */
const HOUSEKEEPING_LEASE_MS = 60_000;

/**
 * Connects to `url` (`mongodb://` or `mongodb+srv://`, database name in the path), checks the schema
 * record before touching anything (a database of a newer Stacks is refused), builds every index only
 * on a new database, and builds the store. Every repository and the blob store answer a failover,
 * network, pool or time-limit failure as 503 `store_unavailable` (mappingStoreErrors). Work that
 * grows with the library or changes the index layout is left to housekeeping, after listening.
 */
export async function createMongoStore(url: string, options: { serverSelectionTimeoutMS?: number } & StoreLimits = {}): Promise<MongoStore> {
  const database = await MongoDatabase.connect(url, options);
  try {
    await openSchema(database.db);
  } catch (error) {
    await database.close();
    throw error;
  }
  const { db } = database;
  const blobs = new GridFsBlobStore(db);
  const holder = `${hostname()}:${process.pid}:${randomUUID()}`;
  const maintenance = () => database.maintenance();
  return {
    database,
    users: mappingStoreErrors(new MongoUserRepository(db)),
    revocations: mappingStoreErrors(new MongoTokenRevocationRepository(db)),
    throttle: mappingStoreErrors(new MongoLoginThrottleRepository(db)),
    books: mappingStoreErrors(new MongoBookRepository(db)),
    shelves: mappingStoreErrors(new MongoShelfRepository(db, options.shelfBooksMax)),
    oneTimeCodes: mappingStoreErrors(new MongoOneTimeCodeRepository(db)),
    apiKeys: mappingStoreErrors(new MongoApiKeyRepository(db)),
    progress: mappingStoreErrors(new MongoProgressRepository(db)),
    digests: mappingStoreErrors(new MongoBookDigestRepository(db)),
    syncDocuments: mappingStoreErrors(new MongoSyncDocumentRepository(db)),
    knownAddresses: mappingStoreErrors(new MongoKnownAddressRepository(db)),
    koboDevices: mappingStoreErrors(new MongoKoboDeviceRepository(db)),
    changes: mappingStoreErrors(new MongoChangeFeed(db)),
    health: new MongoHealthCheck(db),
    blobs: mappingStoreErrors(blobs),
    rateCounter: new MongoRateCounter(db),
    housekeepingLeases: { forStep: (step) => new MongoLease(db, `housekeeping:${step}`, holder, HOUSEKEEPING_LEASE_MS) },
    housekeeping: [
      { name: 'indexes brought up to date', run: async () => bringIndexesUpToDate(await maintenance()) },
      { name: 'search grams backfilled', run: async () => ({ booksMigrated: await backfillSearchTokens(await maintenance()) }) },
      { name: 'orphan chunks swept', run: async () => ({ orphanChunksRemoved: await new GridFsBlobStore(await maintenance()).removeOrphanChunks() }) },
      { name: 'change feed backfilled', run: async () => backfillChangeFeed(await maintenance(), new MongoChangeFeed(await maintenance())) },
    ],
    close: () => database.close(),
  };
}
