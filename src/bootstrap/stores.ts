import type {
  BookRepository,
  HealthCheck,
  LoginThrottleRepository,
  OneTimeCodeRepository,
  ShelfRepository,
  TokenRevocationRepository,
  UserRepository,
} from '../application/ports.js';
import { createMemoryStore } from '../adapters/memory/memory-store.js';
import type { GridFsBlobStore } from '../adapters/mongo/grid-fs-blob-store.js';
import { createSqliteStore } from '../adapters/sqlite/sqlite-store.js';
import type { StoreConfig } from './config.js';

/** Every repository of one store, and how to close it. */
export interface Stores {
  readonly users: UserRepository;
  readonly revocations: TokenRevocationRepository;
  readonly throttle: LoginThrottleRepository;
  readonly books: BookRepository;
  readonly shelves: ShelfRepository;
  readonly oneTimeCodes: OneTimeCodeRepository;
  readonly health: HealthCheck;
  /** The store's own blob store (GridFS for MongoDB); absent when files live under DATA_DIR. */
  readonly blobs?: GridFsBlobStore;
  close(): Promise<void>;
}

export async function openStores(config: StoreConfig): Promise<Stores> {
  switch (config.kind) {
    case 'memory':
      return createMemoryStore();
    case 'sqlite':
      return createSqliteStore(config.dataDir);
    case 'mongo': {
      // Loaded only here, so the embedded store never pays for the MongoDB driver at start-up.
      const { createMongoStore } = await import('../adapters/mongo/mongo-store.js');
      return createMongoStore(config.url);
    }
  }
}
