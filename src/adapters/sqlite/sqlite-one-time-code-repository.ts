import type { Database, Statement } from 'better-sqlite3';
import type { OneTimeCodeRepository } from '../../application/ports.js';
import { toMillis } from './sqlite-database.js';

/** OneTimeCodeRepository on SQLite; `take` is one `DELETE … RETURNING`, so a value is taken once. */
export class SqliteOneTimeCodeRepository implements OneTimeCodeRepository {
  private readonly upsert: Statement;
  private readonly takeOne: Statement;
  private readonly purge: Statement;

  constructor(db: Database) {
    this.upsert = db.prepare(`INSERT INTO one_time_codes (key, value, expires_at) VALUES (?, ?, ?)
      ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`);
    this.takeOne = db.prepare('DELETE FROM one_time_codes WHERE key = ? RETURNING value, expires_at');
    this.purge = db.prepare('DELETE FROM one_time_codes WHERE expires_at <= ?');
  }

  async put(key: string, value: string, expiresAt: Date): Promise<void> {
    this.upsert.run(key, value, toMillis(expiresAt));
  }

  async take(key: string, now: Date): Promise<string | null> {
    const row = this.takeOne.get(key) as { value: string; expires_at: number } | undefined;
    return row && row.expires_at > toMillis(now) ? row.value : null;
  }

  async purgeExpired(now: Date): Promise<number> {
    return this.purge.run(toMillis(now)).changes;
  }
}
