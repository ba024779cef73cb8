import type { Database, Statement, Transaction } from 'better-sqlite3';
import type { LoginThrottleRepository } from '../../application/ports.js';
import type { ThrottleCounter, ThrottlePolicy } from '../../domain/login-throttle.js';
import { afterFailure } from '../../domain/login-throttle.js';
import { fromMillis, toMillis } from './sqlite-database.js';

interface CounterRow {
  key: string;
  failures: number;
  window_started_at: number;
  blocked_until: number | null;
  blocks: number;
}

type RecordFailure = (key: string, now: Date, policy: ThrottlePolicy) => ThrottleCounter;

/** LoginThrottleRepository on SQLite; a failure is read, applied and written in one immediate transaction. */
export class SqliteLoginThrottleRepository implements LoginThrottleRepository {
  private readonly select: Statement;
  private readonly upsert: Statement;
  private readonly remove: Statement;
  private readonly failure: Transaction<RecordFailure>;

  constructor(db: Database) {
    this.select = db.prepare('SELECT key, failures, window_started_at, blocked_until, blocks FROM login_throttle WHERE key = ?');
    this.upsert = db.prepare(`INSERT INTO login_throttle (key, failures, window_started_at, blocked_until, blocks)
      VALUES (@key, @failures, @window_started_at, @blocked_until, @blocks)
      ON CONFLICT (key) DO UPDATE SET failures = excluded.failures, window_started_at = excluded.window_started_at,
        blocked_until = excluded.blocked_until, blocks = excluded.blocks`);
    this.remove = db.prepare('DELETE FROM login_throttle WHERE key = ?');
    this.failure = db.transaction((key: string, now: Date, policy: ThrottlePolicy) => {
      const next = afterFailure(this.read(key), key, now, policy);
      this.upsert.run({
        key,
        failures: next.failures,
        window_started_at: toMillis(next.windowStartedAt),
        blocked_until: next.blockedUntil ? toMillis(next.blockedUntil) : null,
        blocks: next.blocks,
      });
      return next;
    });
  }

  async get(key: string): Promise<ThrottleCounter | null> {
    return this.read(key);
  }

  async recordFailure(key: string, now: Date, policy: ThrottlePolicy): Promise<ThrottleCounter> {
    return structuredClone(this.failure.immediate(key, now, policy));
  }

  async reset(key: string): Promise<void> {
    this.remove.run(key);
  }

  private read(key: string): ThrottleCounter | null {
    const row = this.select.get(key) as CounterRow | undefined;
    if (!row) return null;
    return {
      key: row.key,
      failures: row.failures,
      windowStartedAt: fromMillis(row.window_started_at),
      blockedUntil: row.blocked_until === null ? null : fromMillis(row.blocked_until),
      blocks: row.blocks,
    };
  }
}
