import type { Database, Statement } from 'better-sqlite3';
import type { KnownAddressRepository } from '../../application/ports.js';
import { fromMillis, toMillis } from './sqlite-database.js';

/**
 * KnownAddressRepository on SQLite (migration 8: table `known_addresses`, keyed by (user_id, address)),
 * written through the counters' connection like the login throttle: one upsert that keeps the later
 * time; a row for an account already gone is not written, and the foreign key drops a deleted one's.
 */
export class SqliteKnownAddressRepository implements KnownAddressRepository {
  private readonly upsert: Statement;
  private readonly selectOne: Statement;
  private readonly selectRecent: Statement;
  private readonly removeForUser: Statement;
  private readonly removeBefore: Statement;

  constructor(db: Database) {
    this.upsert = db.prepare(`INSERT INTO known_addresses (user_id, address, last_sign_in_at)
      SELECT id, @address, @at FROM users WHERE id = @user_id
      ON CONFLICT (user_id, address) DO UPDATE SET last_sign_in_at = max(last_sign_in_at, excluded.last_sign_in_at)`);
    this.selectOne = db.prepare('SELECT last_sign_in_at FROM known_addresses WHERE user_id = ? AND address = ?').pluck();
    this.selectRecent = db.prepare(`SELECT address FROM known_addresses WHERE user_id = ? AND last_sign_in_at >= ?
      ORDER BY last_sign_in_at DESC, address LIMIT ?`).pluck();
    this.removeForUser = db.prepare('DELETE FROM known_addresses WHERE user_id = ?');
    this.removeBefore = db.prepare('DELETE FROM known_addresses WHERE last_sign_in_at < ?');
  }

  async remember(userId: string, address: string, at: Date): Promise<void> {
    this.upsert.run({ user_id: userId, address, at: toMillis(at) });
  }

  async lastSignIn(userId: string, address: string): Promise<Date | null> {
    const at = this.selectOne.get(userId, address) as number | undefined;
    return at === undefined ? null : fromMillis(at);
  }

  async recent(userId: string, since: Date, limit: number): Promise<string[]> {
    return this.selectRecent.all(userId, toMillis(since), limit) as string[];
  }

  async deleteForUser(userId: string): Promise<void> {
    this.removeForUser.run(userId);
  }

  async purgeBefore(before: Date): Promise<number> {
    return this.removeBefore.run(toMillis(before)).changes;
  }
}
