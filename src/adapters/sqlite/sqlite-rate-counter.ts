import type { Database, Statement } from 'better-sqlite3';
import type { RateCounter } from '../../application/ports.js';

/** Spent windows are swept once every this many additions. */
const SWEEP_EVERY = 1000;

/**
 * Fixed-window counters in `rate_counters`, shared by every server process on the same database file
 * (WORKERS): one upsert per batch of hits a worker reserves (SharedBudget), atomic because SQLite has
 * one writer at a time. Written on the counter connection (synchronous=NORMAL): a machine crash loses
 * a few hits of one window, which a budget tolerates. Spent windows are deleted as additions go on.
 */
export class SqliteRateCounter implements RateCounter {
  private readonly upsert: Statement;
  private readonly sweep: Statement;
  private additions = 0;

  constructor(db: Database) {
    this.upsert = db.prepare(`INSERT INTO rate_counters (key, count, expires_at) VALUES (?, ?, ?)
      ON CONFLICT (key) DO UPDATE SET count = count + excluded.count RETURNING count`).pluck();
    this.sweep = db.prepare('DELETE FROM rate_counters WHERE expires_at <= ?');
  }

  /** Adds `hits` to key's count in the fixed window of windowMs holding now; the count after it and when the window ends. */
  async add(key: string, hits: number, windowMs: number, now: Date): Promise<{ count: number; resetAt: Date }> {
    const start = Math.floor(now.getTime() / windowMs) * windowMs;
    const resetAt = start + windowMs;
    if (++this.additions % SWEEP_EVERY === 0) this.sweep.run(now.getTime());
    const count = this.upsert.get(`${windowMs}:${start}:${key}`, hits, resetAt) as number;
    return { count, resetAt: new Date(resetAt) };
  }
}
