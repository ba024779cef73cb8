import type { Collection, Db, IndexDescription } from 'mongodb';
import type { BookDigestEntry, BookDigestRepository } from '../../application/ports.js';
import type { KoreaderDigests } from '../../domain/koreader-digest.js';

/** A `book_digests` document: one per book, `_id` the book id. */
interface BookDigestDocument {
  _id: string;
  partialMd5: string;
  fileNameMd5: string;
}

/** Each digest is looked up by its own index. */
export const BOOK_DIGEST_INDEXES: IndexDescription[] = [
  { key: { partialMd5: 1 }, name: 'book_digests_partial' },
  { key: { fileNameMd5: 1 }, name: 'book_digests_file_name' },
];

/**
 * BookDigestRepository on MongoDB. There are no foreign keys: the book's deletion forgets its
 * digests after it, and a lookup that finds a book since deleted is answered by the caller's read of it.
 */
export class MongoBookDigestRepository implements BookDigestRepository {
  private readonly digests: Collection<BookDigestDocument>;
  private readonly books: Collection<{ _id: string }>;

  constructor(db: Db) {
    this.digests = db.collection<BookDigestDocument>('book_digests');
    this.books = db.collection<{ _id: string }>('books');
  }

  async put(bookId: string, digests: KoreaderDigests): Promise<void> {
    const document = { partialMd5: digests.partialMd5, fileNameMd5: digests.fileNameMd5 };
    await this.digests.updateOne({ _id: String(bookId) }, { $set: document }, { upsert: true });
  }

  /** One unordered bulk write of upserts. */
  async putMany(entries: readonly BookDigestEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.digests.bulkWrite(
      entries.map(({ bookId, digests }) => ({
        updateOne: { filter: { _id: String(bookId) }, update: { $set: { partialMd5: digests.partialMd5, fileNameMd5: digests.fileNameMd5 } }, upsert: true },
      })),
      { ordered: false },
    );
  }

  /** By index book_digests_partial, then book_digests_file_name. */
  async findBookId(digest: string): Promise<string | null> {
    const byContent = await this.digests.findOne({ partialMd5: String(digest) }, { projection: { _id: 1 } });
    if (byContent) return byContent._id;
    const byName = await this.digests.find({ fileNameMd5: String(digest) }, { projection: { _id: 1 } }).limit(2).toArray();
    return byName.length === 1 ? byName[0]!._id : null;
  }

  /** Walks books by `_id` in pages of `limit`, asking which of each page have digests (both by `_id`). */
  async booksWithoutDigests(afterId: string | null, limit: number): Promise<string[]> {
    const missing: string[] = [];
    let cursor = afterId;
    while (missing.length < limit) {
      const filter = cursor === null ? {} : { _id: { $gt: cursor } };
      const ids = (await this.books.find(filter, { projection: { _id: 1 } }).sort({ _id: 1 }).limit(limit).toArray()).map((b) => b._id);
      if (ids.length === 0) break;
      const known = new Set((await this.digests.find({ _id: { $in: ids } }, { projection: { _id: 1 } }).toArray()).map((d) => d._id));
      missing.push(...ids.filter((id) => !known.has(id)));
      cursor = ids.at(-1)!;
    }
    return missing.slice(0, limit);
  }

  async deleteForBook(bookId: string): Promise<void> {
    await this.digests.deleteOne({ _id: String(bookId) });
  }
}
