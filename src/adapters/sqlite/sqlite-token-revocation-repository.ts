import type { Database, Statement } from 'better-sqlite3';
import type { TokenRevocationRepository } from '../../application/ports.js';
import { toMillis } from './sqlite-database.js';

/** TokenRevocationRepository on SQLite; an index on expiry keeps purging cheap. */
export class SqliteTokenRevocationRepository implements TokenRevocationRepository {
  private readonly upsert: Statement;
  private readonly lookup: Statement;
  private readonly purge: Statement;

  constructor(db: Database) {
    this.upsert = db.prepare(`INSERT INTO token_revocations (jti, expires_at) VALUES (?, ?)
      ON CONFLICT (jti) DO UPDATE SET expires_at = max(expires_at, excluded.expires_at)`);
    this.lookup = db.prepare('SELECT 1 FROM token_revocations WHERE jti = ?').pluck();
    this.purge = db.prepare('DELETE FROM token_revocations WHERE expires_at <= ?');
  }

  async revoke(jti: string, expiresAt: Date): Promise<void> {
    this.upsert.run(jti, toMillis(expiresAt));
  }

  async isRevoked(jti: string): Promise<boolean> {
    return this.lookup.get(jti) !== undefined;
  }

  async purgeExpired(now: Date): Promise<number> {
    return this.purge.run(toMillis(now)).changes;
  }
}
