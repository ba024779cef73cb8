import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSqliteStore, type SqliteStore } from '../../../src/adapters/sqlite/sqlite-store.js';

const MINUTE = 60_000;
const at = (ms: number) => new Date(Date.UTC(2030, 0, 1) + ms);

describe('SqliteRateCounter (request budgets shared by worker processes)', () => {
  let dir: string;
  let a: SqliteStore;
  let b: SqliteStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'stacks-rate-'));
    a = createSqliteStore(dir); // two connections to one file, as two workers hold
    b = createSqliteStore(dir);
  });
  afterEach(async () => {
    await a.close();
    await b.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts every addition of both connections, 100 each interleaved, into one exact total', async () => {
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).workerRateCounter.add('minute:1.2.3.4', 1, MINUTE, at(1000))));
    expect(results.map((r) => r.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect((await a.workerRateCounter.add('minute:1.2.3.4', 5, MINUTE, at(2000))).count).toBe(205);
  });

  it('keeps keys and windows apart and ends each window on its boundary', async () => {
    await a.workerRateCounter.add('k', 3, MINUTE, at(0));
    expect(await b.workerRateCounter.add('other', 1, MINUTE, at(0))).toEqual({ count: 1, resetAt: at(MINUTE) });
    expect(await b.workerRateCounter.add('k', 1, MINUTE, at(MINUTE - 1))).toEqual({ count: 4, resetAt: at(MINUTE) });
    expect(await b.workerRateCounter.add('k', 1, MINUTE, at(MINUTE))).toEqual({ count: 1, resetAt: at(2 * MINUTE) });
  });

  it('forgets spent windows as additions go on', async () => {
    for (let i = 0; i < 1000; i++) await a.workerRateCounter.add(`old${i}`, 1, MINUTE, at(0));
    for (let i = 0; i < 1000; i++) await a.workerRateCounter.add('new', 1, MINUTE, at(5 * MINUTE));
    const rows = a.db.prepare('SELECT key FROM rate_counters').pluck().all();
    expect(rows).toEqual([`${MINUTE}:${at(5 * MINUTE).getTime()}:new`]);
  });
});
