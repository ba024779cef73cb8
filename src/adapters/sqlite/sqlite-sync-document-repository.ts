import type { Database, Statement } from 'better-sqlite3';
import type { SyncDocumentRepository } from '../../application/ports.js';
import type { SyncDocument } from '../../domain/kosync.js';
import { fromMillis, toMillis } from './sqlite-database.js';

interface SyncDocumentRow {
  user_id: string;
  document: string;
  progress: string;
  percentage: number;
  device: string;
  device_id: string;
  updated_at: number;
}

/**
 * SyncDocumentRepository on SQLite (migration 7): one upsert on the (user_id, document) primary key.
 * A row for an account already gone is not written; the foreign key drops the rows of a deleted one.
 */
export class SqliteSyncDocumentRepository implements SyncDocumentRepository {
  private readonly selectOne: Statement;
  private readonly upsert: Statement;
  private readonly removeForUser: Statement;

  constructor(db: Database) {
    this.selectOne = db.prepare('SELECT * FROM sync_documents WHERE user_id = ? AND document = ?');
    this.upsert = db.prepare(`INSERT INTO sync_documents (user_id, document, progress, percentage, device, device_id, updated_at)
      SELECT id, @document, @progress, @percentage, @device, @device_id, @updated_at FROM users WHERE id = @user_id
      ON CONFLICT (user_id, document) DO UPDATE SET progress = excluded.progress, percentage = excluded.percentage,
        device = excluded.device, device_id = excluded.device_id, updated_at = excluded.updated_at`);
    this.removeForUser = db.prepare('DELETE FROM sync_documents WHERE user_id = ?');
  }

  async get(userId: string, document: string): Promise<SyncDocument | null> {
    const row = this.selectOne.get(userId, document) as SyncDocumentRow | undefined;
    return row ? toRecord(row) : null;
  }

  async put(record: SyncDocument): Promise<void> {
    this.upsert.run({
      user_id: record.userId, document: record.document, progress: record.progress, percentage: record.percentage,
      device: record.device, device_id: record.deviceId, updated_at: toMillis(record.updatedAt),
    });
  }

  async deleteForUser(userId: string): Promise<void> {
    this.removeForUser.run(userId);
  }
}

function toRecord(row: SyncDocumentRow): SyncDocument {
  return {
    userId: row.user_id, document: row.document, progress: row.progress, percentage: row.percentage,
    device: row.device, deviceId: row.device_id, updatedAt: fromMillis(row.updated_at),
  };
}
