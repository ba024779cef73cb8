import { rmSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { BookRepository } from '../../src/application/ports.js';
import type { BookQuery } from '../../src/domain/book.js';
import type { MongoStore } from '../../src/adapters/mongo/mongo-store.js';
import type { SqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';
import { stopMongoTestServer } from '../../test/support/mongo-server.js';
import { fmt, summarize, type LatencySummary } from './stats.js';

/** One search's latency over `runs` timed calls after one warm-up, and its total. */
export async function measureSearch(repo: BookRepository, query: BookQuery, runs: number): Promise<LatencySummary & { total: number }> {
  const { total } = await repo.search(query);
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await repo.search(query);
    samples.push(performance.now() - start);
  }
  return { ...summarize(samples), total };
}

/** Drops the bench's MongoDB database, closes both stores, removes the SQLite folder and stops the test server. */
export async function closeSearchBench(mongo: MongoStore, sqlite: SqliteStore, dir: string): Promise<void> {
  await mongo.database.db.dropDatabase().catch(() => undefined);
  await mongo.close();
  await sqlite.close();
  rmSync(dir, { recursive: true, force: true });
  await stopMongoTestServer();
}

/**
 * Each operation on MongoDB and on SQLite (the same run's baseline), totals checked equal: one table
 * row per operation (name, matches, Mongo p50 and p99, SQLite p50 and p99, in ms).
 */
export async function compareSearches(
  mongo: BookRepository, sqlite: BookRepository, operations: readonly (readonly [string, BookQuery])[], runs: { mongo: number; sqlite: number },
): Promise<(string | number)[][]> {
  const rows: (string | number)[][] = [];
  for (const [name, query] of operations) {
    const m = await measureSearch(mongo, query, runs.mongo);
    const s = await measureSearch(sqlite, query, runs.sqlite);
    if (m.total !== s.total) throw new Error(`${name}: totals differ (mongo ${m.total}, sqlite ${s.total})`);
    rows.push([name, m.total, fmt(m.p50), fmt(m.p99), fmt(s.p50), fmt(s.p99)]);
    console.info(name, `total ${m.total}`, `mongo p50 ${fmt(m.p50)} p99 ${fmt(m.p99)} ms`, `sqlite p50 ${fmt(s.p50)} p99 ${fmt(s.p99)} ms`);
  }
  return rows;
}
