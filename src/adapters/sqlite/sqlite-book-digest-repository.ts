import type { Database, Statement } from 'better-sqlite3';
import type { BookDigestEntry, BookDigestRepository } from '../../application/ports.js';
import type { KoreaderDigests } from '../../domain/koreader-digest.js';
import { SqliteBookWalk } from './sqlite-book-walk.js';

/**
 * BookDigestRepository on SQLite (migration 6): one row per book, each digest indexed; the foreign
 * key drops a deleted book's row, and a row for a book already gone is not written.
 */
export class SqliteBookDigestRepository implements BookDigestRepository {
  private readonly upsert: Statement;
  private readonly byPartial: Statement;
  private readonly byFileName: Statement;
  private readonly missing: SqliteBookWalk;
  private readonly remove: Statement;
  private readonly upsertAll: (entries: readonly BookDigestEntry[]) => void;

  constructor(db: Database) {
    this.upsert = db.prepare(`INSERT INTO book_digests (book_id, partial_md5, file_name_md5)
      SELECT id, @partial, @fileName FROM books WHERE id = @bookId
      ON CONFLICT (book_id) DO UPDATE SET partial_md5 = excluded.partial_md5, file_name_md5 = excluded.file_name_md5`);
    this.byPartial = db.prepare('SELECT book_id FROM book_digests WHERE partial_md5 = ? LIMIT 1').pluck();
    this.byFileName = db.prepare('SELECT book_id FROM book_digests WHERE file_name_md5 = ? LIMIT 2').pluck();
    this.missing = new SqliteBookWalk(db, 'NOT EXISTS (SELECT 1 FROM book_digests d WHERE d.book_id = b.id)');
    this.remove = db.prepare('DELETE FROM book_digests WHERE book_id = ?');
    this.upsertAll = db.transaction((entries: readonly BookDigestEntry[]) => {
      for (const { bookId, digests } of entries) this.upsert.run({ bookId, partial: digests.partialMd5, fileName: digests.fileNameMd5 });
    });
  }

  async put(bookId: string, digests: KoreaderDigests): Promise<void> {
    this.upsert.run({ bookId, partial: digests.partialMd5, fileName: digests.fileNameMd5 });
  }

  /** One transaction, so one commit (and one fsync) for the whole batch. */
  async putMany(entries: readonly BookDigestEntry[]): Promise<void> {
    this.upsertAll(entries);
  }

  async findBookId(digest: string): Promise<string | null> {
    const byContent = this.byPartial.get(digest) as string | undefined;
    if (byContent !== undefined) return byContent;
    const byName = this.byFileName.all(digest) as string[];
    return byName.length === 1 ? byName[0]! : null;
  }

  async booksWithoutDigests(afterId: string | null, limit: number): Promise<string[]> {
    return this.missing.ids(afterId, limit);
  }

  async deleteForBook(bookId: string): Promise<void> {
    this.remove.run(bookId);
  }
}
