import type { Database, Statement, Transaction } from 'better-sqlite3';
import type { LoginThrottleRepository } from '../../application/ports.js';
import type { ThrottleCounter, ThrottlePolicy } from '../../domain/login-throttle.js';
import { afterRelease, reserveAttempt } from '../../domain/login-throttle.js';
import { fromMillis, toMillis } from './sqlite-database.js';

interface CounterRow {
  key: string;
  failures: number;
  window_started_at: number;
  blocked_until: number | null;
  blocks: number;
}

type Change = (key: string, now: Date, policy: ThrottlePolicy) => number;

/** LoginThrottleRepository on SQLite; each change is read, decided and written in one immediate transaction. */
export class SqliteLoginThrottleRepository implements LoginThrottleRepository {
  private readonly select: Statement;
  private readonly upsert: Statement;
  private readonly remove: Statement;
  private readonly reservation: Transaction<Change>;
  private readonly giveBack: Transaction<Change>;

  constructor(db: Database) {
    this.select = db.prepare('SELECT key, failures, window_started_at, blocked_until, blocks FROM login_throttle WHERE key = ?');
    this.upsert = db.prepare(`INSERT INTO login_throttle (key, failures, window_started_at, blocked_until, blocks)
      VALUES (@key, @failures, @window_started_at, @blocked_until, @blocks)
      ON CONFLICT (key) DO UPDATE SET failures = excluded.failures, window_started_at = excluded.window_started_at,
        blocked_until = excluded.blocked_until, blocks = excluded.blocks`);
    this.remove = db.prepare('DELETE FROM login_throttle WHERE key = ?');
    this.reservation = db.transaction((key: string, now: Date, policy: ThrottlePolicy) => {
      const { waitMs, next } = reserveAttempt(this.read(key), key, now, policy);
      if (next) this.write(next);
      return waitMs;
    });
    this.giveBack = db.transaction((key: string, now: Date, policy: ThrottlePolicy) => {
      const next = afterRelease(this.read(key), now, policy);
      if (next) this.write(next);
      return 0;
    });
  }

  async get(key: string): Promise<ThrottleCounter | null> {
    return this.read(key);
  }

  async reserve(key: string, now: Date, policy: ThrottlePolicy): Promise<number> {
    return this.reservation.immediate(key, now, policy);
  }

  async release(key: string, now: Date, policy: ThrottlePolicy): Promise<void> {
    this.giveBack.immediate(key, now, policy);
  }

  async reset(key: string): Promise<void> {
    this.remove.run(key);
  }

  private write(counter: ThrottleCounter): void {
    this.upsert.run({
      key: counter.key,
      failures: counter.failures,
      window_started_at: toMillis(counter.windowStartedAt),
      blocked_until: counter.blockedUntil ? toMillis(counter.blockedUntil) : null,
      blocks: counter.blocks,
    });
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
