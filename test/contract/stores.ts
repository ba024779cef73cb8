import { afterEach, beforeEach, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  ApiKeyRepository,
  BookDigestRepository,
  BookRepository,
  ChangeFeedRepository,
  HealthCheck,
  KnownAddressRepository,
  KoboDeviceRepository,
  LoginThrottleRepository,
  OneTimeCodeRepository,
  ProgressRepository,
  ShelfRepository,
  SyncDocumentRepository,
  TokenRevocationRepository,
  UserRepository,
} from '../../src/application/ports.js';
import { createMemoryStore } from '../../src/adapters/memory/memory-store.js';
import { createSqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';
import { createMongoStore } from '../../src/adapters/mongo/mongo-store.js';
import type { StoreLimits } from '../../src/domain/shelf-rules.js';
import type { StandInLimit } from '../support/mongo-server.js';
import { MONGO_SERVER_NAMES, mongoLimits, mongoServerKind, mongoTestServer } from '../support/mongo-server.js';

/** What every store adapter offers; the contract suites only see these ports. */
export interface ContractStore {
  readonly users: UserRepository;
  readonly revocations: TokenRevocationRepository;
  readonly throttle: LoginThrottleRepository;
  readonly books: BookRepository;
  readonly shelves: ShelfRepository;
  readonly oneTimeCodes: OneTimeCodeRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly progress: ProgressRepository;
  readonly digests: BookDigestRepository;
  readonly syncDocuments: SyncDocumentRepository;
  readonly knownAddresses: KnownAddressRepository;
  readonly koboDevices: KoboDeviceRepository;
  readonly changes: ChangeFeedRepository;
  readonly health: HealthCheck;
  /** Closes the store and removes whatever it left on disk. */
  dispose(): Promise<void>;
}

export interface StoreFactory {
  readonly name: string;
  /** What this store's server cannot check, with the reason (only the MongoDB stand-in has any). */
  readonly limits?: Partial<Record<StandInLimit, string>>;
  open(limits?: StoreLimits): Promise<ContractStore>;
}

/** `it`, or a skip naming the reason when the factory's server cannot honour one of these limits. */
export function itWhere(factory: StoreFactory, ...needs: StandInLimit[]) {
  const reason = needs.map((need) => factory.limits?.[need]).find((r) => r !== undefined);
  return (name: string, fn: () => Promise<void>, timeout?: number) =>
    reason === undefined ? it(name, fn, timeout) : it.skip(`${name} [skipped on ${factory.name}: ${reason}]`, fn);
}

let mongoDatabases = 0;

/** A fresh database per store on the Mongo test server; dispose drops it. */
function mongoFactory(): StoreFactory {
  const kind = mongoServerKind();
  return {
    name: `mongo (${MONGO_SERVER_NAMES[kind]})`,
    limits: mongoLimits(kind),
    async open(limits = {}) {
      const server = await mongoTestServer();
      const store = await createMongoStore(server.database(`stacks_contract_${process.pid}_${++mongoDatabases}`), limits);
      return { ...store, dispose: async () => {
        await store.database.db.dropDatabase().catch(() => undefined);
        await store.close();
      } };
    },
  };
}

function inTempDir(name: string, open: (dir: string, limits: StoreLimits) => Omit<ContractStore, 'dispose'> & { close(): Promise<void> }): StoreFactory {
  return {
    name,
    async open(limits = {}) {
      const dir = mkdtempSync(join(tmpdir(), `stacks-${name}-`));
      const store = open(dir, limits);
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
const ALL_STORE_FACTORIES: readonly StoreFactory[] = [
  {
    name: 'memory',
    async open(limits = {}) {
      const store = createMemoryStore(limits);
      return { ...store, dispose: () => store.close() };
    },
  },
  inTempDir('sqlite', (dir, limits) => createSqliteStore(dir, limits)),
  mongoFactory(),
];

/**
 * The stores named in STACKS_TEST_STORES (comma-separated, by the first word of their name: `memory`,
 * `sqlite`, `mongo`), or every store when it is unset. `npm run test:fast` sets it to `memory`.
 */
export function storesNamed(wanted: string | undefined, factories: readonly StoreFactory[] = ALL_STORE_FACTORIES): readonly StoreFactory[] {
  if (wanted === undefined || wanted.trim() === '') return factories;
  const names = new Set(wanted.split(',').map((name) => name.trim()));
  const unknown = [...names].filter((name) => !factories.some((f) => f.name.split(' ')[0] === name));
  if (unknown.length > 0) throw new Error(`STACKS_TEST_STORES names no store: ${unknown.join(', ')}`);
  return factories.filter((f) => names.has(f.name.split(' ')[0]!));
}

export const STORE_FACTORIES: readonly StoreFactory[] = storesNamed(process.env.STACKS_TEST_STORES);

/** Opens a fresh store (built with `limits`) before each test of the calling suite and disposes of it after. */
export function useStore(factory: StoreFactory, limits: StoreLimits = {}): () => ContractStore {
  let store: ContractStore | undefined;
  beforeEach(async () => {
    store = await factory.open(limits);
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
