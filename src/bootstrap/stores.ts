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
import { openSqliteStore } from '../adapters/sqlite/sqlite-store.js';
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
  close(): Promise<void>;
}

export async function openStores(config: StoreConfig): Promise<Stores> {
  switch (config.kind) {
    case 'memory':
      return createMemoryStore();
    case 'sqlite':
      return openSqliteStore(config.dataDir);
    case 'mongo':
      throw new Error('DATABASE_URL: the MongoDB store is not available in this build yet');
  }
}
