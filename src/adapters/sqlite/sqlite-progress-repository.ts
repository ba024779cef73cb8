import type { Database, Statement } from 'better-sqlite3';
import type { ProgressRepository } from '../../application/ports.js';
import { bookNotFound } from '../../domain/error-catalogue.js';
import type { ReadingStatus, StoredProgress } from '../../domain/reading-progress.js';
import { fromMillis, isForeignKeyViolation, toMillis } from './sqlite-database.js';

interface ProgressRow {
  user_id: string;
  book_id: string;
  status: ReadingStatus;
  percentage: number;
  locator: string | null;
  device: string | null;
  device_id: string | null;
  updated_at: number;
}

/**
 * ProgressRepository on SQLite (migration 4). A write is one upsert on the (user_id, book_id) primary
 * key; the foreign keys refuse a write for a deleted book or user and cascade their deletion.
 */
export class SqliteProgressRepository implements ProgressRepository {
  private readonly selectOne: Statement;
  private readonly upsert: Statement;
  private readonly selectMany: Statement;
  private readonly removeOne: Statement;
  private readonly removeForBook: Statement;
  private readonly removeForUser: Statement;

  constructor(db: Database) {
    this.selectOne = db.prepare('SELECT * FROM reading_progress WHERE user_id = ? AND book_id = ?');
    this.upsert = db.prepare(`INSERT INTO reading_progress (user_id, book_id, status, percentage, locator, device, device_id, updated_at)
      VALUES (@user_id, @book_id, @status, @percentage, @locator, @device, @device_id, @updated_at)
      ON CONFLICT (user_id, book_id) DO UPDATE SET status = excluded.status, percentage = excluded.percentage,
        locator = excluded.locator, device = excluded.device, device_id = excluded.device_id, updated_at = excluded.updated_at`);
    this.selectMany = db.prepare('SELECT * FROM reading_progress WHERE user_id = ? AND book_id IN (SELECT value FROM json_each(?))');
    this.removeOne = db.prepare('DELETE FROM reading_progress WHERE user_id = ? AND book_id = ?');
    this.removeForBook = db.prepare('DELETE FROM reading_progress WHERE book_id = ?');
    this.removeForUser = db.prepare('DELETE FROM reading_progress WHERE user_id = ?');
  }

  async get(userId: string, bookId: string): Promise<StoredProgress | null> {
    const row = this.selectOne.get(userId, bookId) as ProgressRow | undefined;
    return row ? toProgress(row) : null;
  }

  async put(progress: StoredProgress): Promise<void> {
    try {
      this.upsert.run({
        user_id: progress.userId, book_id: progress.bookId, status: progress.status, percentage: progress.percentage,
        locator: progress.locator, device: progress.device, device_id: progress.deviceId, updated_at: toMillis(progress.updatedAt),
      });
    } catch (error) {
      if (isForeignKeyViolation(error)) throw bookNotFound(progress.bookId);
      throw error;
    }
  }

  async findMany(userId: string, bookIds: readonly string[]): Promise<StoredProgress[]> {
    if (bookIds.length === 0) return [];
    return (this.selectMany.all(userId, JSON.stringify(bookIds)) as ProgressRow[]).map(toProgress);
  }

  async deleteOne(userId: string, bookId: string): Promise<boolean> {
    return this.removeOne.run(userId, bookId).changes > 0;
  }

  async deleteForBook(bookId: string): Promise<void> {
    this.removeForBook.run(bookId);
  }

  async deleteForUser(userId: string): Promise<void> {
    this.removeForUser.run(userId);
  }
}

function toProgress(row: ProgressRow): StoredProgress {
  return {
    userId: row.user_id, bookId: row.book_id, status: row.status, percentage: row.percentage,
    locator: row.locator, device: row.device, deviceId: row.device_id, updatedAt: fromMillis(row.updated_at),
  };
}
