import type { Collection, Db } from 'mongodb';
import type { SyncDocumentRepository } from '../../application/ports.js';
import type { SyncDocument } from '../../domain/kosync.js';
import { isDuplicateId } from './mongo-database.js';

/** A `sync_documents` document: one per (user, document), its `_id` derived from both. */
interface SyncDocumentDocument extends SyncDocument {
  _id: string;
}

const recordId = (userId: string, document: string): string => JSON.stringify([String(userId), String(document)]);

/**
 * SyncDocumentRepository on MongoDB: a write is one replace-or-insert by `_id`, then the user's records
 * past the newest `keep` are deleted (index sync_documents_user_recency). Writes in flight each delete
 * beyond the boundary they see, which only ever removes records older than `keep` newer ones, so none
 * of the newest `keep` is lost and once they are done at most `keep` remain. There are no foreign keys, so
 * deleting a user deletes their records after the account.
 */
export class MongoSyncDocumentRepository implements SyncDocumentRepository {
  private readonly records: Collection<SyncDocumentDocument>;

  constructor(db: Db) {
    this.records = db.collection<SyncDocumentDocument>('sync_documents');
  }

  async get(userId: string, document: string): Promise<SyncDocument | null> {
    const found = await this.records.findOne({ _id: recordId(userId, document) });
    return found ? toRecord(found) : null;
  }

  async put(record: SyncDocument, keep: number): Promise<void> {
    const document: SyncDocumentDocument = { _id: recordId(record.userId, record.document), ...toRecord(record) };
    const write = () => this.records.replaceOne({ _id: document._id }, document, { upsert: true });
    // Two first writes of the same key can both try the insert; the loser's retry replaces.
    await write().catch((error: unknown) => (isDuplicateId(error, document._id) ? write() : Promise.reject(error)));
    await this.evictBeyond(String(record.userId), keep);
  }

  /** Deletes the user's records after the newest `keep`, the first of them (the boundary) included. */
  private async evictBeyond(userId: string, keep: number): Promise<void> {
    const boundary = await this.records
      .find({ userId }, { sort: { updatedAt: -1, document: -1 }, skip: keep, limit: 1, projection: { updatedAt: 1, document: 1 } })
      .next();
    if (!boundary) return;
    await this.records.deleteMany({
      userId,
      $or: [{ updatedAt: { $lt: boundary.updatedAt } }, { updatedAt: boundary.updatedAt, document: { $lte: boundary.document } }],
    });
  }

  /** By index sync_documents_user_document (its userId prefix). */
  async deleteForUser(userId: string): Promise<void> {
    await this.records.deleteMany({ userId: String(userId) });
  }
}

function toRecord(d: SyncDocument): SyncDocument {
  return {
    userId: d.userId, document: d.document, progress: d.progress, percentage: d.percentage,
    device: d.device, deviceId: d.deviceId, updatedAt: d.updatedAt,
  };
}
