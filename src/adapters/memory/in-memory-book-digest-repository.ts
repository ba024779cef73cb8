import type { BookDigestEntry, BookDigestRepository } from '../../application/ports.js';
import type { KoreaderDigests } from '../../domain/koreader-digest.js';
import { compareText, copy, MemoryDatabase } from './memory-database.js';

/** BookDigestRepository over process memory (scans: tests and `memory:` libraries are small). */
export class InMemoryBookDigestRepository implements BookDigestRepository {
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  async put(bookId: string, digests: KoreaderDigests): Promise<void> {
    if (this.db.books.has(bookId)) this.db.digests.set(bookId, copy(digests));
  }

  async putMany(entries: readonly BookDigestEntry[]): Promise<void> {
    for (const { bookId, digests } of entries) await this.put(bookId, digests);
  }

  async findBookId(digest: string): Promise<string | null> {
    const entries = [...this.db.digests];
    const byContent = entries.find(([, d]) => d.partialMd5 === digest);
    if (byContent) return byContent[0];
    const byName = entries.filter(([, d]) => d.fileNameMd5 === digest);
    return byName.length === 1 ? byName[0]![0] : null;
  }

  async booksWithoutDigests(afterId: string | null, limit: number): Promise<string[]> {
    return [...this.db.books.keys()]
      .filter((id) => !this.db.digests.has(id) && (afterId === null || compareText(id, afterId) > 0))
      .sort(compareText)
      .slice(0, limit);
  }

  async deleteForBook(bookId: string): Promise<void> {
    this.db.digests.delete(bookId);
  }
}
