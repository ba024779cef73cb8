import type { Database, Statement, Transaction } from 'better-sqlite3';
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
 * SyncDocumentRepository on SQLite (migrations 7 and 9): one upsert on the (user_id, document) primary
 * key and, in the same transaction, the user's rows past the cap deleted oldest first (by the
 * sync_documents_user_recency index). A row for an account already gone is not written; the foreign
 * key drops the rows of a deleted one.
 */
export class SqliteSyncDocumentRepository implements SyncDocumentRepository {
  private readonly selectOne: Statement;
  private readonly upsert: Statement;
  private readonly removeForUser: Statement;
  private readonly evict: Statement;
  private readonly putAndEvict: Transaction<(row: Record<string, unknown>, keep: number) => void>;

  constructor(db: Database) {
    this.selectOne = db.prepare('SELECT * FROM sync_documents WHERE user_id = ? AND document = ?');
    this.upsert = db.prepare(`INSERT INTO sync_documents (user_id, document, progress, percentage, device, device_id, updated_at)
      SELECT id, @document, @progress, @percentage, @device, @device_id, @updated_at FROM users WHERE id = @user_id
      ON CONFLICT (user_id, document) DO UPDATE SET progress = excluded.progress, percentage = excluded.percentage,
        device = excluded.device, device_id = excluded.device_id, updated_at = excluded.updated_at`);
    this.removeForUser = db.prepare('DELETE FROM sync_documents WHERE user_id = ?');
    this.evict = db.prepare(`DELETE FROM sync_documents WHERE user_id = @user_id AND document IN (
      SELECT document FROM sync_documents WHERE user_id = @user_id ORDER BY updated_at DESC, document DESC LIMIT -1 OFFSET @keep)`);
    this.putAndEvict = db.transaction((row: Record<string, unknown>, keep: number) => {
      this.upsert.run(row);
      this.evict.run({ user_id: row['user_id'], keep });
    });
  }

  async get(userId: string, document: string): Promise<SyncDocument | null> {
    const row = this.selectOne.get(userId, document) as SyncDocumentRow | undefined;
    return row ? toRecord(row) : null;
  }

  async put(record: SyncDocument, keep: number): Promise<void> {
    const row = {
      user_id: record.userId, document: record.document, progress: record.progress, percentage: record.percentage,
      device: record.device, device_id: record.deviceId, updated_at: toMillis(record.updatedAt),
    };
    this.putAndEvict.immediate(row, keep);
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
