import { AsyncLocalStorage } from 'node:async_hooks';
import { openSqliteDatabase } from '../../../src/adapters/sqlite/sqlite-database.js';
import { SqliteLoginThrottleRepository } from '../../../src/adapters/sqlite/sqlite-login-throttle-repository.js';
import { SqliteProgressRepository } from '../../../src/adapters/sqlite/sqlite-progress-repository.js';
import { SqliteSyncDocumentRepository } from '../../../src/adapters/sqlite/sqlite-sync-document-repository.js';
import { SqliteUserRepository } from '../../../src/adapters/sqlite/sqlite-user-repository.js';
import { spawnServer, type LogLine } from '../../support/cluster-server.js';
import { sqliteSyncDocuments, type RaceServer, type StoreUnderRace } from './race-server.js';

/** The burst a request is part of (RaceWorld.burst runs each of its requests inside one). */
export const burstContext = new AsyncLocalStorage<{ readonly label: string }>();

/** Which worker slots served the requests of one burst, as the workers' request log tells. */
export interface BurstSpread {
  readonly label: string;
  readonly requests: number;
  /** Requests served, by worker slot. */
  readonly byWorker: Readonly<Record<number, number>>;
}

/** Servers whose bursts are not all accounted for yet: each settles once every answered request of theirs was logged. */
const unsettled = new Set<() => Promise<void>>();
const settled: BurstSpread[] = [];

/** The bursts every cluster server answered since the last call, with the workers that served them. */
export async function settledBursts(): Promise<BurstSpread[]> {
  await Promise.all([...unsettled].map((settle) => settle()));
  return settled.splice(0);
}

let requests = 0;

/**
 * `src/bootstrap/main.ts` spawned with WORKERS=n on a fresh SQLite DATA_DIR (the primary migrates it
 * before any worker starts). The races' store reads go to the same file through repositories on a
 * connection of this process: no container, so no housekeeping and no migration beside the cluster's.
 * Every request opens its own connection (`connection: close`), so the primary hands the requests of a
 * burst to the workers in turn rather than a few pooled keep-alive connections pinning them, and each
 * carries `x-request-id: <burst>.<n>`, which the worker that serves it logs with its slot.
 */
export async function clusterServer(store: StoreUnderRace, workers: number, env: Record<string, string>): Promise<RaceServer> {
  const opened = await store.open();
  if (opened.env.DATA_DIR === undefined || opened.env.DATABASE_URL) throw new Error(`${store.name}: a cluster runs on an embedded SQLite DATA_DIR`);
  const server = await spawnServer({ ...opened.env, ...env, WORKERS: String(workers) });
  const db = openSqliteDatabase(opened.env.DATA_DIR);
  const progress = new SqliteProgressRepository(db);
  const syncDocuments = new SqliteSyncDocumentRepository(db);
  const throttle = new SqliteLoginThrottleRepository(db);
  const users = new SqliteUserRepository(db);
  const backdoor = sqliteSyncDocuments(db);

  const answered = new Map<string, number>();
  const served = new Map<string, Map<number, number>>();
  const waiting = new Set<() => void>();
  const wake = () => [...waiting].forEach((resolve) => resolve());
  server.child.once('exit', wake);
  const died: LogLine[] = [];
  const stopListening = server.onLine((line: LogLine) => {
    if (line.msg === 'worker died') died.push(line);
    const id = line.req_id;
    if (line.msg !== 'request' || typeof id !== 'string' || !id.includes('.')) return;
    const label = id.slice(0, id.lastIndexOf('.'));
    const byWorker = served.get(label) ?? new Map<number, number>();
    const slot = line.worker ?? -1; // -1: a process that is no worker (WORKERS=1) served it
    byWorker.set(slot, (byWorker.get(slot) ?? 0) + 1);
    served.set(label, byWorker);
    wake();
  });
  const logged = (label: string) => [...(served.get(label)?.values() ?? [])].reduce((a, b) => a + b, 0);
  // No time bound: the line of an answered request is written as its response closes; the test's timeout stops a hang.
  const settle = async () => {
    while ([...answered].some(([label, n]) => logged(label) < n)) {
      if (server.child.exitCode !== null) throw new Error(`the cluster exited (${server.child.exitCode}) with bursts unlogged:\n${server.output().slice(-4000)}`);
      await new Promise<void>((resolve) => {
        const done = () => {
          waiting.delete(done);
          resolve();
        };
        waiting.add(done);
      });
    }
    // A worker that crashed under a race is a failure whatever the answers said (its slot is restarted).
    if (died.length > 0) throw new Error(`a worker died during the races: ${JSON.stringify(died)}\n${server.output().slice(-4000)}`);
    for (const [label, requests] of answered) settled.push({ label, requests, byWorker: Object.fromEntries(served.get(label) ?? []) });
    answered.clear();
    served.clear();
  };
  unsettled.add(settle);

  return {
    url: server.url,
    records: {
      progressOf: (userId, bookId) => progress.get(userId, bookId),
      syncDocumentOf: (userId, document) => syncDocuments.get(userId, document),
      throttleOf: (key) => throttle.get(key),
      seedSyncDocuments: (records) => backdoor.insert(records),
      countSyncDocuments: (userId) => backdoor.count(userId),
      users: (n) => users.list({ page: 1, pageSize: n }),
    },
    async request(path, init) {
      const label = burstContext.getStore()?.label;
      requests += 1;
      const res = await fetch(`${server.url}${path}`, { ...init, headers: { ...init.headers, connection: 'close', 'x-request-id': `${label ?? 'single'}.${requests}` } });
      if (label !== undefined) answered.set(label, (answered.get(label) ?? 0) + 1);
      return res;
    },
    async close() {
      try {
        await settle();
      } finally {
        unsettled.delete(settle);
        stopListening();
        db.close();
        server.child.kill('SIGTERM');
        await server.exited;
        await opened.drop();
      }
    },
  };
}
