import { bookSearchText, type Book, type BookQuery, type BookSort } from '../../domain/book.js';
import type { MetadataPatch } from '../../domain/book-metadata.js';
import { duplicateBook } from '../../domain/error-catalogue.js';
import { offsetOf } from '../../domain/page.js';
import type { BookRepository, Slice } from '../../application/ports.js';
import type { StoredProgress } from '../../domain/reading-progress.js';
import { compareText, copy, MemoryDatabase, progressKey } from './memory-database.js';

/** BookRepository over process memory; search has the same semantics as the SQLite store. */
export class InMemoryBookRepository implements BookRepository {
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  async create(book: Book): Promise<void> {
    if (this.db.books.has(book.id)) throw new Error(`A book with id '${book.id}' already exists.`);
    this.assertUniqueSha(book);
    this.db.books.set(book.id, copy(book));
  }

  async updateMetadata(id: string, patch: MetadataPatch, updatedAt: Date): Promise<Book | null> {
    const book = this.db.books.get(id);
    if (!book) return null;
    const updated: Book = { ...book, ...copy(patch), updatedAt: copy(updatedAt) };
    this.db.books.set(id, updated);
    return copy(updated);
  }

  /** Also takes the book off every shelf and drops its reading progress and digests, as the database's ON DELETE CASCADE does. */
  async delete(id: string): Promise<boolean> {
    if (!this.db.books.delete(id)) return false;
    for (const record of this.db.shelves.values()) record.books.delete(id);
    for (const [key, progress] of this.db.progress) if (progress.bookId === id) this.db.progress.delete(key);
    this.db.digests.delete(id);
    return true;
  }

  async findById(id: string): Promise<Book | null> {
    const book = this.db.books.get(id);
    return book ? copy(book) : null;
  }

  async findBySha256(sha256: string): Promise<Book | null> {
    const book = [...this.db.books.values()].find((b) => b.sha256 === sha256);
    return book ? copy(book) : null;
  }

  async findByIds(ids: readonly string[]): Promise<Book[]> {
    const unique = [...new Set(ids)];
    return unique.flatMap((id) => {
      const book = this.db.books.get(id);
      return book ? [copy(book)] : [];
    });
  }

  async existingIds(ids: readonly string[]): Promise<ReadonlySet<string>> {
    return new Set(ids.filter((id) => this.db.books.has(id)));
  }

  async search(query: BookQuery): Promise<Slice<Book>> {
    const readAt = readingOf(this.db, query.reader);
    const matches = [...this.db.books.values()].filter((book) => matchesQuery(book, query) && matchesStatus(readAt(book.id), query));
    matches.sort(comparatorFor(query.sort, (book) => readAt(book.id)?.updatedAt.getTime() ?? null));
    const start = offsetOf(query);
    return { items: matches.slice(start, start + query.pageSize).map(copy), total: matches.length };
  }

  private assertUniqueSha(book: Book): void {
    const other = [...this.db.books.values()].find((b) => b.sha256 === book.sha256 && b.id !== book.id);
    if (other) {
      throw duplicateBook(other.id);
    }
  }
}

function matchesQuery(book: Book, query: BookQuery): boolean {
  if (query.q && !bookSearchText(book).includes(query.q.toLowerCase())) return false;
  const author = query.author?.toLowerCase();
  if (author !== undefined && !book.authors.some((a) => a.toLowerCase() === author)) return false;
  const tag = query.tag?.toLowerCase();
  if (tag !== undefined && !book.tags.some((t) => t.toLowerCase() === tag)) return false;
  return query.format === undefined || book.format === query.format;
}

/** The reader's stored progress by book id (none without a reader). */
function readingOf(db: MemoryDatabase, reader: string | undefined): (bookId: string) => StoredProgress | null {
  return (bookId) => (reader === undefined ? null : db.progress.get(progressKey(reader, bookId)) ?? null);
}

function matchesStatus(progress: StoredProgress | null, query: BookQuery): boolean {
  return query.status === undefined || (progress?.status ?? 'unread') === query.status;
}

type SortKey = string | number | null;

function sortKey(book: Book, sort: BookSort, readAt: (book: Book) => number | null): SortKey {
  switch (sort.field) {
    case 'read':
      return readAt(book);
    case 'title':
      return book.title.toLowerCase();
    case 'author':
      return book.authors[0]?.toLowerCase() ?? null;
    case 'added':
      return book.createdAt.getTime();
    case 'published':
      return book.published;
  }
}

function compareKeys(a: SortKey, b: SortKey): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return compareText(String(a), String(b));
}

/** Key then id, both in the requested direction; a missing key sorts last either way. */
function comparatorFor(sort: BookSort, readAt: (book: Book) => number | null): (a: Book, b: Book) => number {
  const direction = sort.descending ? -1 : 1;
  return (a, b) => {
    const ka = sortKey(a, sort, readAt);
    const kb = sortKey(b, sort, readAt);
    if (ka === null || kb === null) {
      if (ka !== kb) return ka === null ? 1 : -1;
    } else {
      const byKey = compareKeys(ka, kb);
      if (byKey !== 0) return direction * byKey;
    }
    return direction * compareText(a.id, b.id);
  };
}
