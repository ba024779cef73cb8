import { afterEach, beforeEach } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  BookRepository,
  HealthCheck,
  LoginThrottleRepository,
  OneTimeCodeRepository,
  ShelfRepository,
  TokenRevocationRepository,
  UserRepository,
} from '../../src/application/ports.js';
import { createMemoryStore } from '../../src/adapters/memory/memory-store.js';
import { createSqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';

/** What every store adapter offers; the contract suites only see these ports. */
export interface ContractStore {
  readonly users: UserRepository;
  readonly revocations: TokenRevocationRepository;
  readonly throttle: LoginThrottleRepository;
  readonly books: BookRepository;
  readonly shelves: ShelfRepository;
  readonly oneTimeCodes: OneTimeCodeRepository;
  readonly health: HealthCheck;
  /** Closes the store and removes whatever it left on disk. */
  dispose(): Promise<void>;
}

export interface StoreFactory {
  readonly name: string;
  open(): Promise<ContractStore>;
}

function inTempDir(name: string, open: (dir: string) => Omit<ContractStore, 'dispose'> & { close(): Promise<void> }): StoreFactory {
  return {
    name,
    async open() {
      const dir = mkdtempSync(join(tmpdir(), `stacks-${name}-`));
      const store = open(dir);
      return { ...store, dispose: async () => {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      } };
    },
  };
}

/**
 * Every adapter the contract suites run against. Add a new store here (MongoDB: open a fresh
 * database per call, drop it in dispose) and every suite covers it.
 */
export const STORE_FACTORIES: readonly StoreFactory[] = [
  {
    name: 'memory',
    async open() {
      const store = createMemoryStore();
      return { ...store, dispose: () => store.close() };
    },
  },
  inTempDir('sqlite', (dir) => createSqliteStore(dir)),
];

/** Opens a fresh store before each test of the calling suite and disposes of it after. */
export function useStore(factory: StoreFactory): () => ContractStore {
  let store: ContractStore | undefined;
  beforeEach(async () => {
    store = await factory.open();
  });
  afterEach(async () => {
    await store?.dispose();
    store = undefined;
  });
  return () => {
    if (!store) throw new Error('The store is only open inside a test.');
    return store;
  };
}
