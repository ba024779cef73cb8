import type { Database } from 'better-sqlite3';
import { MongoClient } from 'mongodb';
import { createHttpServer, listen, stopServer } from '../../../src/adapters/http/http-server.js';
import { openSqliteDatabase } from '../../../src/adapters/sqlite/sqlite-database.js';
import type { SyncDocumentRepository } from '../../../src/application/ports.js';
import type { ContainerOverrides } from '../../../src/bootstrap/container.js';
import type { StoreConfig } from '../../../src/bootstrap/config.js';
import { portsOf } from '../../../src/bootstrap/tokens.js';
import type { SyncDocument } from '../../../src/domain/kosync.js';
import type { ThrottleCounter } from '../../../src/domain/login-throttle.js';
import type { StoredProgress } from '../../../src/domain/reading-progress.js';
import type { User } from '../../../src/domain/user.js';
import type { StandInLimit } from '../../support/mongo-server.js';
import { startTestApp } from '../../support/test-app.js';
import { clusterServer } from './race-cluster.js';

export interface StoreUnderRace {
  readonly name: string;
  readonly limits: Partial<Record<StandInLimit, string>>;
  /** Served by this many spawned worker processes (`WORKERS`, src/bootstrap/main.ts) instead of one in-process app. */
  readonly workers?: number;
  /** The environment that points Stacks at a fresh database of this store, and how to drop it. */
  open(): Promise<{ env: Record<string, string>; drop(): Promise<void> }>;
}

/** What the races read (and seed) in the store itself, past every route. */
export interface StoreRecords {
  progressOf(userId: string, bookId: string): Promise<StoredProgress | null>;
  syncDocumentOf(userId: string, document: string): Promise<SyncDocument | null>;
  throttleOf(key: string): Promise<ThrottleCounter | null>;
  seedSyncDocuments(records: readonly SyncDocument[]): Promise<void>;
  /** null where the store has no way to count (memory). */
  countSyncDocuments(userId: string): Promise<number | null>;
  /** The first `n` stored accounts, and how many there are. */
  users(n: number): Promise<{ items: readonly User[]; total: number }>;
}

/** A running Stacks on a fresh store, listening on loopback. */
export interface RaceServer {
  readonly url: string;
  readonly records: StoreRecords;
  /** `fetch` of a path on this server (the cluster's tags the request with its burst and opens a connection of its own). */
  request(path: string, init: RequestInit & { headers: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

/** The server's environment for races: bursts of 150 from one forwarded address, so the in-flight cap per address (tested on its own) is lifted. */
export const RACE_ENV = { RATE_LIMIT_PER_MINUTE: '0', REGISTER_LIMIT_PER_HOUR: '0', TRUST_PROXY: '1', MAX_CONNECTIONS_PER_ADDRESS: '100000' };

/** KOReader positions of unmatched documents written and counted in SQLite's own layout (no port counts; the cap check per put is slow). */
export function sqliteSyncDocuments(db: Database) {
  const insert = db.prepare(`INSERT INTO sync_documents (user_id, document, progress, percentage, device, device_id, updated_at)
    VALUES (@userId, @document, @progress, @percentage, @device, @deviceId, @at)`);
  return {
    insert: async (rows: readonly SyncDocument[]) => db.transaction(() => rows.forEach((r) => insert.run({ ...r, at: r.updatedAt.getTime() })))(),
    count: async (userId: string) => (db.prepare('SELECT count(*) AS n FROM sync_documents WHERE user_id = ?').get(userId) as { n: number }).n,
  };
}

/** The same through the store's own layout: 10,000 records through the repository would take minutes. */
async function syncDocumentBackdoor<T>(store: StoreConfig, repository: SyncDocumentRepository, use: (db: {
  insert(records: readonly SyncDocument[]): Promise<void>;
  count(userId: string): Promise<number>;
}) => Promise<T>): Promise<T> {
  if (store.kind === 'mongo') {
    const client = await MongoClient.connect(store.url);
    try {
      const records = client.db().collection('sync_documents');
      return await use({
        insert: async (rows) => void (await records.insertMany(rows.map((r) => ({ _id: JSON.stringify([r.userId, r.document]) as never, ...r })))),
        count: (userId) => records.countDocuments({ userId }),
      });
    } finally {
      await client.close();
    }
  }
  if (store.kind === 'sqlite') {
    const db = openSqliteDatabase(store.dataDir);
    try {
      return await use(sqliteSyncDocuments(db));
    } finally {
      db.close();
    }
  }
  return use({
    insert: async (rows) => {
      for (const [i, r] of rows.entries()) {
        await repository.put(r, Number.MAX_SAFE_INTEGER);
        // Each put scans the store: let the server's timers run, or its idle keep-alive sockets close under the next request.
        if (i % 200 === 199) await new Promise((resolve) => setImmediate(resolve));
      }
    },
    count: async () => Number.NaN,
  });
}

/** Stacks over a freshly opened store of this kind, in this process, with the races' environment. */
async function inProcessServer(store: StoreUnderRace, env: Record<string, string>, overrides: ContainerOverrides): Promise<RaceServer> {
  const opened = await store.open();
  const t = await startTestApp({ ...RACE_ENV, ...opened.env, ...env }, overrides);
  const server = createHttpServer(t.app, { trustProxy: 1 });
  const port = await listen(server, 0, '127.0.0.1');
  const url = `http://127.0.0.1:${port}`;
  const ports = portsOf(t.container.di);
  const syncDocuments = ports.SyncDocumentRepository;
  return {
    url,
    records: {
      progressOf: (userId, bookId) => ports.ProgressRepository.get(userId, bookId),
      syncDocumentOf: (userId, document) => syncDocuments.get(userId, document),
      throttleOf: (key) => ports.LoginThrottleRepository.get(key),
      seedSyncDocuments: (records) => syncDocumentBackdoor(t.config.store, syncDocuments, (db) => db.insert(records)),
      countSyncDocuments: async (userId) => {
        const n = await syncDocumentBackdoor(t.config.store, syncDocuments, (db) => db.count(userId));
        return Number.isNaN(n) ? null : n;
      },
      users: (n) => ports.UserRepository.list({ page: 1, pageSize: n }),
    },
    request: (path, init) => fetch(`${url}${path}`, init),
    async close() {
      await stopServer(server, 0);
      await t.close();
      await opened.drop();
    },
  };
}

/** Stacks over a freshly opened store of this kind with the races' environment (and `env`), listening on loopback. */
export async function raceServer(store: StoreUnderRace, env: Record<string, string> = {}, overrides: ContainerOverrides = {}): Promise<RaceServer> {
  if (store.workers === undefined) return inProcessServer(store, env, overrides);
  if (Object.keys(overrides).length > 0) throw new Error(`${store.name}: ${unreachableOverrides(store, overrides)}`);
  return clusterServer(store, store.workers, { ...RACE_ENV, ...env });
}

/** Why a suite's container overrides cannot reach this store's server (undefined: they can). */
export function unreachableOverrides(store: StoreUnderRace, overrides: ContainerOverrides): string | undefined {
  const names = Object.keys(overrides);
  if (store.workers === undefined || names.length === 0) return undefined;
  return `${names.join(', ')} is an in-process container override, and no setting of the configuration carries it to the spawned worker processes`;
}
