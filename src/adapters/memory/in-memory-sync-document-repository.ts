import type { SyncDocumentRepository } from '../../application/ports.js';
import type { SyncDocument } from '../../domain/kosync.js';
import { copy, MemoryDatabase, progressKey } from './memory-database.js';

/** Newest first: by `updatedAt`, then document, both descending (the order every store evicts in, from the end). */
const byRecency = (a: SyncDocument, b: SyncDocument): number =>
  b.updatedAt.getTime() - a.updatedAt.getTime() || (a.document < b.document ? 1 : a.document > b.document ? -1 : 0);

/** SyncDocumentRepository over process memory; a record for an account that is gone is not kept, as SQLite's foreign key does. */
export class InMemorySyncDocumentRepository implements SyncDocumentRepository {
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  async get(userId: string, document: string): Promise<SyncDocument | null> {
    const record = this.db.syncDocuments.get(progressKey(userId, document));
    return record ? copy(record) : null;
  }

  async put(record: SyncDocument, keep: number): Promise<void> {
    if (!this.db.users.has(record.userId)) return;
    this.db.syncDocuments.set(progressKey(record.userId, record.document), copy(record));
    const mine = [...this.db.syncDocuments.values()].filter((r) => r.userId === record.userId);
    if (mine.length <= keep) return;
    for (const stale of mine.sort(byRecency).slice(keep)) this.db.syncDocuments.delete(progressKey(stale.userId, stale.document));
  }

  async deleteForUser(userId: string): Promise<void> {
    for (const [key, record] of this.db.syncDocuments) if (record.userId === userId) this.db.syncDocuments.delete(key);
  }
}
