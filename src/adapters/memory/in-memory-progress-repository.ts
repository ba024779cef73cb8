import type { ProgressRepository } from '../../application/ports.js';
import { bookNotFound } from '../../domain/error-catalogue.js';
import type { StoredProgress } from '../../domain/reading-progress.js';
import { copy, MemoryDatabase, progressKey } from './memory-database.js';

/** ProgressRepository over process memory; a write for a missing book fails as SQLite's foreign key does. */
export class InMemoryProgressRepository implements ProgressRepository {
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  async get(userId: string, bookId: string): Promise<StoredProgress | null> {
    const progress = this.db.progress.get(progressKey(userId, bookId));
    return progress ? copy(progress) : null;
  }

  async put(progress: StoredProgress): Promise<void> {
    if (!this.db.books.has(progress.bookId)) throw bookNotFound(progress.bookId);
    this.db.progress.set(progressKey(progress.userId, progress.bookId), copy(progress));
  }

  async findMany(userId: string, bookIds: readonly string[]): Promise<StoredProgress[]> {
    return bookIds.flatMap((bookId) => {
      const progress = this.db.progress.get(progressKey(userId, bookId));
      return progress ? [copy(progress)] : [];
    });
  }

  async deleteOne(userId: string, bookId: string): Promise<boolean> {
    return this.db.progress.delete(progressKey(userId, bookId));
  }

  async deleteForBook(bookId: string): Promise<void> {
    for (const [key, progress] of this.db.progress) if (progress.bookId === bookId) this.db.progress.delete(key);
  }

  async deleteForUser(userId: string): Promise<void> {
    for (const [key, progress] of this.db.progress) if (progress.userId === userId) this.db.progress.delete(key);
  }
}
