import type { Collection, Db, IndexDescription } from 'mongodb';
import type { BookDigestEntry, BookDigestRepository } from '../../application/ports.js';
import type { KoreaderDigests } from '../../domain/koreader-digest.js';
import { QUERY_MAX_TIME_MS } from './mongo-transactions.js';

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

/** The record, in `stacks_meta`, that every book stored before books were marked has been walked once. */
const WALKED = 'digest-backfill-walked';
const limited = { maxTimeMS: QUERY_MAX_TIME_MS };

/**
 * BookDigestRepository on MongoDB. There are no foreign keys: the book's deletion forgets its
 * digests after it, and a lookup that finds a book since deleted is answered by the caller's read of it.
 * A book is stored marked `digestsPending` (MongoBookRepository.create) and unmarked with its digests,
 * so once every book stored before the mark existed has been walked (once, recorded in `stacks_meta`),
 * the backfill reads only the marked books (partial index books_digests_pending), not every book.
 */
export class MongoBookDigestRepository implements BookDigestRepository {
  private readonly digests: Collection<BookDigestDocument>;
  private readonly books: Collection<{ _id: string; digestsPending?: true }>;
  private readonly meta: Collection<{ _id: string; done: boolean }>;
  /** Set when this process began a walk from the first book: reaching the last one then completes it. */
  private walkingFromStart = false;

  constructor(db: Db) {
    this.digests = db.collection<BookDigestDocument>('book_digests');
    this.books = db.collection('books');
    this.meta = db.collection('stacks_meta');
  }

  async put(bookId: string, digests: KoreaderDigests): Promise<void> {
    const document = { partialMd5: digests.partialMd5, fileNameMd5: digests.fileNameMd5 };
    await this.digests.updateOne({ _id: String(bookId) }, { $set: document }, { upsert: true });
    await this.books.updateOne({ _id: String(bookId), digestsPending: true }, { $unset: { digestsPending: '' } });
  }

  /** One unordered bulk write of upserts, then the books unmarked in another. */
  async putMany(entries: readonly BookDigestEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.digests.bulkWrite(
      entries.map(({ bookId, digests }) => ({
        updateOne: { filter: { _id: String(bookId) }, update: { $set: { partialMd5: digests.partialMd5, fileNameMd5: digests.fileNameMd5 } }, upsert: true },
      })),
      { ordered: false },
    );
    await this.books.bulkWrite(entries.map(({ bookId }) => ({
      updateOne: { filter: { _id: String(bookId), digestsPending: true }, update: { $unset: { digestsPending: '' } } },
    })), { ordered: false });
  }

  /** By index book_digests_partial, then book_digests_file_name. */
  async findBookId(digest: string): Promise<string | null> {
    const byContent = await this.digests.findOne({ partialMd5: String(digest) }, { projection: { _id: 1 }, ...limited });
    if (byContent) return byContent._id;
    const byName = await this.digests.find({ fileNameMd5: String(digest) }, { projection: { _id: 1 }, ...limited }).limit(2).toArray();
    return byName.length === 1 ? byName[0]!._id : null;
  }

  /** The marked books in id order (index books_digests_pending) once every older book was walked; until then the walk. */
  async booksWithoutDigests(afterId: string | null, limit: number): Promise<string[]> {
    if ((await this.meta.findOne({ _id: WALKED }, limited))?.done === true) {
      const after = afterId === null ? {} : { _id: { $gt: String(afterId) } };
      const marked = await this.books.find({ digestsPending: true, ...after }, { projection: { _id: 1 }, ...limited }).sort({ _id: 1 }).limit(limit).toArray();
      return marked.map((b) => b._id);
    }
    return this.walk(afterId, limit);
  }

  async deleteForBook(bookId: string): Promise<void> {
    await this.digests.deleteOne({ _id: String(bookId) });
    await this.books.updateOne({ _id: String(bookId) }, { $set: { digestsPending: true } });
  }

  /**
   * Walks books by `_id` in pages of `limit`, asking which of each page have digests (both by `_id`) and
   * marking those without; records the walk once a walk begun at the first book reaches the last.
   */
  private async walk(afterId: string | null, limit: number): Promise<string[]> {
    if (afterId === null) this.walkingFromStart = true;
    const missing: string[] = [];
    let cursor = afterId;
    while (missing.length < limit) {
      const filter = cursor === null ? {} : { _id: { $gt: cursor } };
      const ids = (await this.books.find(filter, { projection: { _id: 1 }, ...limited }).sort({ _id: 1 }).limit(limit).toArray()).map((b) => b._id);
      if (ids.length === 0) {
        if (this.walkingFromStart) await this.meta.updateOne({ _id: WALKED }, { $set: { done: true } }, { upsert: true });
        break;
      }
      const known = new Set((await this.digests.find({ _id: { $in: ids } }, { projection: { _id: 1 }, ...limited }).toArray()).map((d) => d._id));
      const unmarked = ids.filter((id) => !known.has(id));
      // Marked, so a book this run cannot digest (its file missing) is still on the list once the walk is recorded.
      if (unmarked.length > 0) await this.books.updateMany({ _id: { $in: unmarked } }, { $set: { digestsPending: true } });
      missing.push(...unmarked);
      cursor = ids.at(-1)!;
    }
    return missing.slice(0, limit);
  }
}
