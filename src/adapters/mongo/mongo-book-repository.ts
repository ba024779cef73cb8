import type { Collection, Db } from 'mongodb';
import type { Book, BookQuery } from '../../domain/book.js';
import type { MetadataPatch } from '../../domain/book-metadata.js';
import { duplicateBook, storeUnavailable } from '../../domain/error-catalogue.js';
import { offsetOf } from '../../domain/page.js';
import type { BookRepository, Slice } from '../../application/ports.js';
import type { BookDocument } from './mongo-book-documents.js';
import { metadataFields, olderGrams, toBook, toBookDocument } from './mongo-book-documents.js';
import { progressCollection, type ProgressDocument } from './mongo-progress-repository.js';
import { READING_BATCH, readingPage } from './mongo-reading-search.js';
import { candidateGrams, isUnfiltered, reversed, searchPlan, type GramCoverage } from './mongo-book-search.js';
import { GramFrequencies } from './mongo-gram-frequencies.js';
import { inTransaction, isDuplicateKeyOn, QUERY_MAX_TIME_MS } from './mongo-transactions.js';

const limited = { maxTimeMS: QUERY_MAX_TIME_MS };

/**
 * BookRepository on MongoDB; SHA-256 is unique through an index, search runs on lower-cased keys and
 * indexed grams. Each query names, beside it, the index it relies on (see mongo-library-indexes.ts).
 */
export class MongoBookRepository implements BookRepository {
  private readonly books: Collection<BookDocument>;
  private readonly members: Collection<{ _id: string; shelfId: string; bookId: string }>;
  private readonly progress: Collection<ProgressDocument>;
  private coverage: GramCoverage = 'none';
  private readonly frequencies: GramFrequencies;

  /** `readingBatch`: how many of a reader's records one round trip of a `status` or `read` search handles (smaller in tests). */
  constructor(private readonly db: Db, private readonly readingBatch = READING_BATCH) {
    this.books = db.collection<BookDocument>('books');
    this.members = db.collection('shelf_books');
    this.progress = progressCollection(db);
    this.frequencies = new GramFrequencies(this.books);
  }

  async create(book: Book): Promise<void> {
    // Marked until its KOReader digests are stored (the digest backfill's list: MongoBookDigestRepository).
    await this.books.insertOne({ ...toBookDocument(book), digestsPending: true }).catch((e: unknown) => this.rethrow(e, book));
  }

  /**
   * Compare-and-set on `version`: the search keys depend on several fields, so the merge is computed
   * here and written only if no other write came in between; a lost race reads again (bounded).
   */
  async updateMetadata(id: string, patch: MetadataPatch, updatedAt: Date): Promise<Book | null> {
    for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      const current = await this.books.findOne({ _id: String(id) }, limited); // index: _id_
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

  /**
   * Deletes the book and takes it off every shelf in one transaction. Adding a book to a shelf writes
   * the book document in its own transaction, so the two conflict and one retries: no shelf keeps
   * an entry for a deleted book.
   */
  async delete(id: string): Promise<boolean> {
    return inTransaction(this.db, async (session) => {
      const deleted = (await this.books.deleteOne({ _id: String(id) }, { session })).deletedCount > 0; // index: _id_
      if (deleted) await this.members.deleteMany({ bookId: String(id) }, { session }); // index: shelf_books_book
      return deleted;
    });
  }

  async findById(id: string): Promise<Book | null> {
    const d = await this.books.findOne({ _id: String(id) }, limited); // index: _id_
    return d ? toBook(d) : null;
  }

  async findBySha256(sha256: string): Promise<Book | null> {
    const d = await this.books.findOne({ sha256: String(sha256) }, limited); // index: books_sha256
    return d ? toBook(d) : null;
  }

  async findByIds(ids: readonly string[]): Promise<Book[]> {
    if (ids.length === 0) return [];
    const found = await this.books.find({ _id: { $in: [...new Set(ids.map(String))] } }, limited).toArray(); // index: _id_
    return found.map(toBook);
  }

  async existingIds(ids: readonly string[]): Promise<ReadonlySet<string>> {
    if (ids.length === 0) return new Set();
    const found = await this.books.find({ _id: { $in: [...new Set(ids.map(String))] } }, // index: _id_
      { projection: { _id: 1 }, ...limited }).toArray();
    return new Set(found.map((document) => String(document._id)));
  }

  /**
   * Index: the plan's (searchPlan). `status` and the `read` sort walk the caller's records batch by
   * batch (mongo-reading-search). An unfiltered total comes from the collection's metadata. A deep page
   * is read from whichever end of the order is nearer, so no query skips more than half the matches.
   */
  async search(query: BookQuery): Promise<Slice<Book>> {
    const coverage = query.q === undefined ? 'all' : await this.gramCoverage();
    const grams = candidateGrams(query, coverage);
    const rarest = grams ? await this.frequencies.rarest(grams) : null;
    const { filter, sort } = searchPlan(query, coverage, (all) => rarest ?? (all[0] as string));
    const counted = () => (isUnfiltered(filter) ? this.books.estimatedDocumentCount(limited) : this.books.countDocuments(filter, limited));
    if (query.status !== undefined || query.sort.field === 'read') {
      return readingPage({ books: this.books, progress: this.progress, batch: this.readingBatch }, query, filter, sort, counted);
    }
    const offset = offsetOf(query);
    if (offset === 0) {
      const [documents, total] = await Promise.all([this.books.find(filter, limited).sort(sort).limit(query.pageSize).toArray(), counted()]);
      return { items: documents.map(toBook), total };
    }
    const total = await counted();
    if (offset >= total) return { items: [], total };
    const fromEnd = total - offset - query.pageSize;
    if (offset <= fromEnd) {
      const documents = await this.books.find(filter, limited).sort(sort).skip(offset).limit(query.pageSize).toArray();
      return { items: documents.map(toBook), total };
    }
    const documents = await this.books.find(filter, limited).sort(reversed(sort))
      .skip(Math.max(0, fromEnd)).limit(query.pageSize + Math.min(0, fromEnd)).toArray();
    return { items: documents.reverse().map(toBook), total };
  }

  /**
   * Which grams every book has (the backfill runs after listening); each step, once reached, stays, as
   * every write stores the current grams. Index: books_search_grams_version for books of an older
   * version, books_search_tokens (missing held as null) for books with none.
   */
  private async gramCoverage(): Promise<GramCoverage> {
    const anyOne = { projection: { _id: 1 }, ...limited };
    if (this.coverage !== 'all' && (await this.books.findOne(olderGrams(), anyOne)) === null) this.coverage = 'all';
    else if (this.coverage === 'none' && (await this.books.findOne({ searchTokens: null as unknown as undefined }, anyOne)) === null) this.coverage = 'three';
    return this.coverage;
  }

  private async rethrow(error: unknown, book: Book): Promise<never> {
    if (!isDuplicateKeyOn(error, ['sha256'])) throw error;
    // Local read concern: the winning insert may not be majority-committed yet. Index: books_sha256.
    const other = await this.books.findOne({ sha256: book.sha256 }, { projection: { _id: 1 }, readConcern: { level: 'local' }, ...limited });
    throw duplicateBook(other && other._id !== book.id ? other._id : null);
  }
}

/** How often a metadata write reads again after losing a race before it gives up (503). */
const CAS_ATTEMPTS = 20;

/** A short, growing, jittered wait, so writers that collided do not collide again in lockstep. */
const pause = (attempt: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** attempt)));
