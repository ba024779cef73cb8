import type { Collection, Db, Filter, Sort } from 'mongodb';
import { BOOK_QUERY_MAX_LENGTH, type Book, type BookQuery, type BookSort } from '../../domain/book.js';
import type { MetadataPatch } from '../../domain/book-metadata.js';
import { duplicateBook, storeUnavailable } from '../../domain/error-catalogue.js';
import { offsetOf } from '../../domain/page.js';
import type { BookRepository, Slice } from '../../application/ports.js';
import type { BookDocument } from './mongo-book-documents.js';
import { metadataFields, toBook, toBookDocument } from './mongo-book-documents.js';
import { escapeRegex, isDuplicateKey } from './mongo-database.js';
import { progressCollection, type ProgressDocument } from './mongo-progress-repository.js';
import { readerProgress, readOrderedPage, statusFilter } from './mongo-reading-search.js';

/** Longest `q` searched for; longer text is cut (the HTTP schema caps it lower still). */
export const MAX_QUERY_LENGTH = BOOK_QUERY_MAX_LENGTH;

/** Sort documents (index-backed); a missing key sorts last either way, ties by id in the same direction. */
const SORTS: Readonly<Record<Exclude<BookSort['field'], 'read'>, (d: 1 | -1) => Sort>> = {
  title: (d) => ({ titleKey: d, _id: d }),
  author: (d) => ({ authorMissing: 1, authorKey: d, _id: d }),
  added: (d) => ({ createdAt: d, _id: d }),
  published: (d) => ({ publishedMissing: 1, published: d, _id: d }),
};

/** BookRepository on MongoDB; SHA-256 is unique through an index, search runs on lower-cased keys. */
export class MongoBookRepository implements BookRepository {
  private readonly books: Collection<BookDocument>;
  private readonly members: Collection<{ _id: string; shelfId: string; bookId: string }>;
  private readonly progress: Collection<ProgressDocument>;

  constructor(db: Db) {
    this.books = db.collection<BookDocument>('books');
    this.members = db.collection('shelf_books');
    this.progress = progressCollection(db);
  }

  async create(book: Book): Promise<void> {
    await this.books.insertOne(toBookDocument(book)).catch((e: unknown) => this.rethrow(e, book));
  }

  /**
   * Compare-and-set on `version`: the search keys depend on several fields, so the merge is computed
   * here and written only if no other write came in between; a lost race reads again (bounded).
   */
  async updateMetadata(id: string, patch: MetadataPatch, updatedAt: Date): Promise<Book | null> {
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const current = await this.books.findOne({ _id: String(id) });
      if (!current) return null;
      const book: Book = { ...toBook(current), ...patch, updatedAt };
      const seen = current.version === undefined ? { $exists: false } : current.version;
      const written = await this.books.updateOne({ _id: current._id, version: seen },
        { $set: { ...metadataFields(book), version: (current.version ?? 0) + 1 } });
      if (written.matchedCount === 1) return book;
      await pause(attempt);
    }
    throw storeUnavailable();
  }

  /** Also takes the book off every shelf. */
  async delete(id: string): Promise<boolean> {
    const deleted = (await this.books.deleteOne({ _id: String(id) })).deletedCount > 0;
    if (deleted) await this.members.deleteMany({ bookId: String(id) });
    return deleted;
  }

  async findById(id: string): Promise<Book | null> {
    const d = await this.books.findOne({ _id: String(id) });
    return d ? toBook(d) : null;
  }

  async findBySha256(sha256: string): Promise<Book | null> {
    const d = await this.books.findOne({ sha256: String(sha256) });
    return d ? toBook(d) : null;
  }

  async findByIds(ids: readonly string[]): Promise<Book[]> {
    if (ids.length === 0) return [];
    const found = await this.books.find({ _id: { $in: [...new Set(ids.map(String))] } }).toArray();
    return found.map(toBook);
  }

  async existingIds(ids: readonly string[]): Promise<ReadonlySet<string>> {
    if (ids.length === 0) return new Set();
    const found = await this.books.find({ _id: { $in: [...new Set(ids.map(String))] } }, { projection: { _id: 1 } }).toArray();
    return new Set(found.map((document) => String(document._id)));
  }

  /** `status` and the `read` sort first fetch the caller's records from `progress` (see mongo-reading-search). */
  async search(query: BookQuery): Promise<Slice<Book>> {
    const reading = query.status !== undefined || query.sort.field === 'read';
    const rows = reading ? await readerProgress(this.progress, query.reader) : [];
    const filter = { ...filterFor(query), ...statusFilter(query, rows) };
    if (query.sort.field === 'read') return readOrderedPage(this.books, query, filter, rows);
    const direction = query.sort.descending ? -1 : 1;
    const [documents, total] = await Promise.all([
      this.books.find(filter).sort(SORTS[query.sort.field](direction)).skip(offsetOf(query)).limit(query.pageSize).toArray(),
      this.books.countDocuments(filter),
    ]);
    return { items: documents.map(toBook), total };
  }

  private async rethrow(error: unknown, book: Book): Promise<never> {
    if (!isDuplicateKey(error, 'books_sha256')) throw error;
    const other = await this.books.findOne({ sha256: book.sha256, _id: { $ne: book.id } }, { projection: { _id: 1 } });
    throw duplicateBook(other?._id ?? null);
  }
}

/** How often a metadata write reads again after losing a race before it gives up (503). */
const CAS_ATTEMPTS = 20;

/** A short, growing, jittered wait, so writers that collided do not collide again in lockstep. */
const pause = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** attempt)));

/** Every value is a string built here from the parsed query; user text only ever reaches `$regex` escaped. */
export function filterFor(query: BookQuery): Filter<BookDocument> {
  const filter: Filter<BookDocument> = {};
  if (query.q) filter.searchText = { $regex: escapeRegex(String(query.q).slice(0, MAX_QUERY_LENGTH).toLowerCase()), $options: 'i' };
  if (query.author !== undefined) filter.authorKeys = String(query.author).toLowerCase();
  if (query.tag !== undefined) filter.tagKeys = String(query.tag).toLowerCase();
  if (query.format !== undefined) filter.format = String(query.format) as BookDocument['format'];
  return filter;
}
