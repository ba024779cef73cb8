import type { Collection, Db } from 'mongodb';
import type { ProgressRepository } from '../../application/ports.js';
import type { ReadingStatus, StoredProgress } from '../../domain/reading-progress.js';
import { isDuplicateId } from './mongo-database.js';

/** A `progress` document: one per (user, book), its `_id` derived from both. */
export interface ProgressDocument {
  _id: string;
  userId: string;
  bookId: string;
  status: ReadingStatus;
  percentage: number;
  locator: string | null;
  device: string | null;
  deviceId: string | null;
  updatedAt: Date;
}

export const progressCollection = (db: Db): Collection<ProgressDocument> => db.collection<ProgressDocument>('progress');

const progressId = (userId: string, bookId: string): string => JSON.stringify([String(userId), String(bookId)]);

/**
 * ProgressRepository on MongoDB: a write is one replace-or-insert by `_id`. There are no foreign keys,
 * so the use cases delete a book's or a user's records after it and undo a write that raced a deletion.
 */
export class MongoProgressRepository implements ProgressRepository {
  private readonly progress: Collection<ProgressDocument>;

  constructor(db: Db) {
    this.progress = progressCollection(db);
  }

  async get(userId: string, bookId: string): Promise<StoredProgress | null> {
    const document = await this.progress.findOne({ _id: progressId(userId, bookId) });
    return document ? toProgress(document) : null;
  }

  async put(progress: StoredProgress): Promise<void> {
    const document: ProgressDocument = { _id: progressId(progress.userId, progress.bookId), ...progress };
    const write = () => this.progress.replaceOne({ _id: document._id }, document, { upsert: true });
    // Two first writes of the same key can both try the insert; the loser's retry replaces.
    await write().catch((error: unknown) => (isDuplicateId(error, document._id) ? write() : Promise.reject(error)));
  }

  async findMany(userId: string, bookIds: readonly string[]): Promise<StoredProgress[]> {
    if (bookIds.length === 0) return [];
    const found = await this.progress.find({ _id: { $in: bookIds.map((bookId) => progressId(userId, bookId)) } }).toArray();
    return found.map(toProgress);
  }

  async deleteOne(userId: string, bookId: string): Promise<boolean> {
    return (await this.progress.deleteOne({ _id: progressId(userId, bookId) })).deletedCount > 0;
  }

  /** By index progress_book. */
  async deleteForBook(bookId: string): Promise<void> {
    await this.progress.deleteMany({ bookId: String(bookId) });
  }

  /** By index progress_user_book (its userId prefix). */
  async deleteForUser(userId: string): Promise<void> {
    await this.progress.deleteMany({ userId: String(userId) });
  }
}

function toProgress(d: ProgressDocument): StoredProgress {
  return {
    userId: d.userId, bookId: d.bookId, status: d.status, percentage: d.percentage,
    locator: d.locator ?? null, device: d.device ?? null, deviceId: d.deviceId ?? null, updatedAt: d.updatedAt,
  };
}
