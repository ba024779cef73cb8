import type { SyncDocumentRepository } from '../../application/ports.js';
import type { SyncDocument } from '../../domain/kosync.js';
import { copy, MemoryDatabase, progressKey } from './memory-database.js';

/** SyncDocumentRepository over process memory; a record for an account that is gone is not kept, as SQLite's foreign key does. */
export class InMemorySyncDocumentRepository implements SyncDocumentRepository {
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  async get(userId: string, document: string): Promise<SyncDocument | null> {
    const record = this.db.syncDocuments.get(progressKey(userId, document));
    return record ? copy(record) : null;
  }

  async put(record: SyncDocument): Promise<void> {
    if (this.db.users.has(record.userId)) this.db.syncDocuments.set(progressKey(record.userId, record.document), copy(record));
  }

  async deleteForUser(userId: string): Promise<void> {
    for (const [key, record] of this.db.syncDocuments) if (record.userId === userId) this.db.syncDocuments.delete(key);
  }
}
