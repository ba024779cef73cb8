import { createHttpServer, listen, stopServer } from '../../../src/adapters/http/http-server.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mongoLimits, mongoServerKind, mongoTestServer, type StandInLimit } from '../../support/mongo-server.js';
import { startTestApp, type TestApp } from '../../support/test-app.js';
import type { ContainerOverrides } from '../../../src/bootstrap/container.js';
import type { LoginThrottleRepository, ProgressRepository, SyncDocumentRepository } from '../../../src/application/ports.js';
import type { ThrottleCounter } from '../../../src/domain/login-throttle.js';
import { PORTS } from '../../../src/bootstrap/tokens.js';
import type { StoredProgress } from '../../../src/domain/reading-progress.js';
import type { SyncDocument } from '../../../src/domain/kosync.js';
import { MongoClient } from 'mongodb';
import { openSqliteDatabase } from '../../../src/adapters/sqlite/sqlite-database.js';

/** One HTTP answer, reduced to what the races judge. */
export interface Answer {
  readonly status: number;
  readonly body: any;
}

export interface Caller {
  readonly id: string;
  readonly username: string;
  readonly password: string;
  readonly token: string;
}

export interface RequestOptions {
  readonly token?: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** The client address the server sees (TRUST_PROXY=1 honours X-Forwarded-For). */
  readonly from?: string;
}

/** A running Stacks on one store, listening on loopback, that the races send bursts to. */
export interface RaceWorld {
  readonly store: string;
  /** What this store's server cannot show (only the MongoDB stand-in has limits). */
  readonly limits: Partial<Record<StandInLimit, string>>;
  readonly url: string;
  readonly admin: Caller;
  send(method: string, path: string, options?: RequestOptions): Promise<Answer>;
  /** n requests started together; resolves when every one has answered. */
  burst(n: number, one: (i: number) => Promise<Answer>): Promise<Answer[]>;
  /** A new ordinary account (its own client address, so per-address limits do not mix). */
  fresh(prefix: string): Promise<Caller>;
  /** A client address no other race uses. */
  address(): string;
  /** The stored reading progress, read from the store itself (what no route can show: a record of a deleted book). */
  progressOf(userId: string, bookId: string): Promise<StoredProgress | null>;
  /** The stored KOReader position of a document that matches no book, read from the store itself. */
  syncDocumentOf(userId: string, document: string): Promise<SyncDocument | null>;
  /** A login throttle counter as stored (null: none was ever written, or it was reset). */
  throttleOf(key: string): Promise<ThrottleCounter | null>;
  /** Stores KOReader positions of unmatched documents directly (a user's history, far faster than pushing each). */
  seedSyncDocuments(records: readonly SyncDocument[]): Promise<void>;
  /** How many positions of unmatched documents the store keeps for the user (null where the store has no way to count: memory). */
  countSyncDocuments(userId: string): Promise<number | null>;
  close(): Promise<void>;
}

export const PASSWORD = 'correct horse battery';

/**
 * KOReader positions written and counted in the store's own layout: 10,000 records through the
 * repository would take minutes (each put checks the cap; SQLite syncs each to disk), and no port counts.
 */
async function syncDocumentBackdoor<T>(t: TestApp, use: (db: {
  insert(records: readonly SyncDocument[]): Promise<void>;
  count(userId: string): Promise<number>;
}) => Promise<T>): Promise<T> {
  const store = t.config.store;
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
      const insert = db.prepare(`INSERT INTO sync_documents (user_id, document, progress, percentage, device, device_id, updated_at)
        VALUES (@userId, @document, @progress, @percentage, @device, @deviceId, @at)`);
      return await use({
        insert: async (rows) => db.transaction(() => rows.forEach((r) => insert.run({ ...r, at: r.updatedAt.getTime() })))(),
        count: async (userId) => (db.prepare('SELECT count(*) AS n FROM sync_documents WHERE user_id = ?').get(userId) as { n: number }).n,
      });
    } finally {
      db.close();
    }
  }
  const repository = t.container.di.resolve<SyncDocumentRepository>(PORTS.SyncDocumentRepository);
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

let accounts = 0;
let addresses = 0;
let databases = 0;

export interface StoreUnderRace {
  readonly name: string;
  readonly limits: Partial<Record<StandInLimit, string>>;
  /** The environment that points Stacks at a fresh database of this store, and how to drop it. */
  open(): Promise<{ env: Record<string, string>; drop(): Promise<void> }>;
}

export const STORES_UNDER_RACE: readonly StoreUnderRace[] = [
  { name: 'memory', limits: {}, open: async () => ({ env: { DATABASE_URL: 'memory:' }, drop: async () => undefined }) },
  {
    name: 'sqlite',
    limits: {},
    async open() {
      const dir = await mkdtemp(join(tmpdir(), 'stacks-race-'));
      return { env: { DATABASE_URL: '', DATA_DIR: dir }, drop: () => rm(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: `mongo (${mongoServerKind()})`,
    limits: mongoLimits(),
    async open() {
      const server = await mongoTestServer();
      const dir = await mkdtemp(join(tmpdir(), 'stacks-race-mongo-'));
      const db = `stacks_race_${process.pid}_${(databases += 1)}`;
      return { env: { DATABASE_URL: server.database(db), DATA_DIR: dir }, drop: () => rm(dir, { recursive: true, force: true }) };
    },
  },
];

/** Stacks over a freshly opened store of this kind, with the races' environment, listening on loopback. */
export async function raceServer(
  store: StoreUnderRace, env: Record<string, string> = {}, overrides: ContainerOverrides = {},
): Promise<{ t: TestApp; url: string; close(): Promise<void> }> {
  const opened = await store.open();
  // Bursts of 150 from one forwarded address: the in-flight cap per address (tested on its own) is lifted.
  const t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '0', REGISTER_LIMIT_PER_HOUR: '0', TRUST_PROXY: '1', MAX_CONNECTIONS_PER_ADDRESS: '100000', ...opened.env, ...env }, overrides);
  const server = createHttpServer(t.app, { trustProxy: 1 });
  const port = await listen(server, 0, '127.0.0.1');
  return {
    t,
    url: `http://127.0.0.1:${port}`,
    async close() {
      await stopServer(server, 0);
      await t.close();
      await opened.drop();
    },
  };
}

/** Stacks with the production login policies (unless overridden), TRUST_PROXY=1 and the given extra environment. */
export async function raceWorld(store: StoreUnderRace, env: Record<string, string> = {}, overrides: ContainerOverrides = {}): Promise<RaceWorld> {
  const { t, url, close } = await raceServer(store, env, overrides);

  const send = async (method: string, path: string, o: RequestOptions = {}): Promise<Answer> => {
    const headers: Record<string, string> = { ...o.headers };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    if (o.body !== undefined) headers['content-type'] = 'application/json';
    headers['x-forwarded-for'] = o.from ?? '198.51.100.1';
    const res = await fetch(`${url}${path}`, { method, headers, body: o.body === undefined ? undefined : JSON.stringify(o.body) });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      // not JSON (OPDS, files): keep the text
    }
    return { status: res.status, body };
  };

  const address = () => {
    addresses += 1;
    return `2001:db8:${addresses.toString(16)}::1`;
  };

  const fresh = async (prefix: string): Promise<Caller> => {
    accounts += 1;
    const username = `${prefix}${accounts}`;
    const res = await send('POST', '/api/auth/register', {
      body: { username, email: `${username}@example.test`, password: PASSWORD },
      from: address(),
    });
    if (res.status !== 201) throw new Error(`register ${username}: ${res.status} ${JSON.stringify(res.body)}`);
    return { id: res.body.user.id, username, password: PASSWORD, token: res.body.access_token };
  };

  const admin = await fresh('raceadmin');
  return {
    store: store.name,
    limits: store.limits,
    url,
    admin,
    send,
    burst: (n, one) => Promise.all(Array.from({ length: n }, (_, i) => one(i))),
    fresh,
    address,
    progressOf: (userId, bookId) => t.container.di.resolve<ProgressRepository>(PORTS.ProgressRepository).get(userId, bookId),
    syncDocumentOf: (userId, document) => t.container.di.resolve<SyncDocumentRepository>(PORTS.SyncDocumentRepository).get(userId, document),
    throttleOf: (key) => t.container.di.resolve<LoginThrottleRepository>(PORTS.LoginThrottleRepository).get(key),
    seedSyncDocuments: (records) => syncDocumentBackdoor(t, (db) => db.insert(records)),
    countSyncDocuments: async (userId) => {
      const n = await syncDocumentBackdoor(t, (db) => db.count(userId));
      return Number.isNaN(n) ? null : n;
    },
    close,
  };
}
