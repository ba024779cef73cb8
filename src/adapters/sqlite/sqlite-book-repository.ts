import type { Database, Statement, Transaction } from 'better-sqlite3';
import type { Book, BookQuery } from '../../domain/book.js';
import type { MetadataPatch } from '../../domain/book-metadata.js';
import type { BookRepository, Slice } from '../../application/ports.js';
import { duplicateBook } from '../../domain/error-catalogue.js';
import type { BookRow } from './sqlite-book-rows.js';
import { BOOK_COLUMNS, bookParams, toBook } from './sqlite-book-rows.js';
import { SqliteBookCounts } from './sqlite-book-counts.js';
import { SqliteBookSearch } from './sqlite-book-search.js';
import { isUniqueViolation } from './sqlite-database.js';

const FIELDS = `title, title_key, author_key, authors, tags, description, publisher, language, published, isbn,
  series, series_index, format, file_name, file_size, sha256, cover_media_type, owner_id, owner_username,
  search_text, created_at, updated_at`;

/**
 * BookRepository on SQLite: authors and tags in indexed side tables, `q` through an FTS5 trigram index,
 * and counts kept in `book_counts` (the gram counts by the writes here, each in its write's transaction).
 */
export class SqliteBookRepository implements BookRepository {
  private readonly insert: Transaction<(book: Book) => void>;
  private readonly patchTx: Transaction<(id: string, patch: MetadataPatch, updatedAt: Date) => Book | null>;
  private readonly remove: Transaction<(id: string) => boolean>;
  private readonly byId: Statement;
  private readonly bySha: Statement;
  private readonly byIds: Statement;
  private readonly existing: Statement;
  private readonly idBySha: Statement;
  private readonly found: Statement;
  private readonly searcher: SqliteBookSearch;

  constructor(db: Database) {
    const counts = new SqliteBookCounts(db);
    // Each write hands the counts the search text as stored.
    const insertBook = db.prepare(`INSERT INTO books (id, ${FIELDS}) VALUES (@id, ${params(FIELDS)}) RETURNING search_text`).pluck();
    const updateBook = db.prepare(`UPDATE books SET ${assignments(FIELDS)} WHERE id = @id RETURNING search_text`).pluck();
    const deleteBook = db.prepare('DELETE FROM books WHERE id = ? RETURNING search_text').pluck();
    const storedText = db.prepare('SELECT search_text FROM books WHERE id = ?').pluck();
    const insertAuthor = db.prepare('INSERT INTO book_authors (book_id, position, name, name_key) VALUES (?, ?, ?, ?)');
    const insertTag = db.prepare('INSERT INTO book_tags (book_id, position, tag, tag_key) VALUES (?, ?, ?, ?)');
    const clearAuthors = db.prepare('DELETE FROM book_authors WHERE book_id = ?');
    const clearTags = db.prepare('DELETE FROM book_tags WHERE book_id = ?');
    const writeSideTables = (book: Book): void => {
      book.authors.forEach((name, i) => insertAuthor.run(book.id, i, name, name.toLowerCase()));
      book.tags.forEach((tag, i) => insertTag.run(book.id, i, tag, tag.toLowerCase()));
    };
    this.insert = db.transaction((book: Book) => {
      counts.searchTextChanged(null, insertBook.get(bookParams(book)) as string);
      writeSideTables(book);
    });
    this.remove = db.transaction((id: string) => {
      const text = deleteBook.get(id) as string | undefined;
      if (text !== undefined) counts.searchTextChanged(text, null);
      return text !== undefined;
    });
    this.byId = db.prepare(`SELECT ${BOOK_COLUMNS} FROM books WHERE id = ?`);
    this.patchTx = db.transaction((id: string, patch: MetadataPatch, updatedAt: Date) => {
      const row = this.byId.get(id) as BookRow | undefined;
      if (!row) return null;
      const book: Book = { ...toBook(row), ...patch, updatedAt };
      const before = storedText.get(id) as string;
      counts.searchTextChanged(before, updateBook.get(bookParams(book)) as string);
      clearAuthors.run(id);
      clearTags.run(id);
      writeSideTables(book);
      return book;
    });
    this.bySha = db.prepare(`SELECT ${BOOK_COLUMNS} FROM books WHERE sha256 = ?`);
    this.byIds = db.prepare(`SELECT ${BOOK_COLUMNS} FROM books WHERE id IN (SELECT value FROM json_each(?))`);
    this.existing = db.prepare('SELECT id FROM books WHERE id IN (SELECT value FROM json_each(?))').pluck();
    this.idBySha = db.prepare('SELECT id FROM books WHERE sha256 = ?').pluck();
    this.found = db.prepare('SELECT 1 FROM books WHERE id = ?').pluck();
    this.searcher = new SqliteBookSearch(db, counts);
  }

  async create(book: Book): Promise<void> {
    this.write(this.insert, book);
  }

  /** Read, merge and write in one immediate transaction, so a concurrent edit (any process) is never overwritten. */
  async updateMetadata(id: string, patch: MetadataPatch, updatedAt: Date): Promise<Book | null> {
    return this.patchTx.immediate(id, patch, updatedAt);
  }

  /** Also takes the book off every shelf (ON DELETE CASCADE). */
  async delete(id: string): Promise<boolean> {
    return this.remove(id);
  }

  async findById(id: string): Promise<Book | null> {
    const row = this.byId.get(id) as BookRow | undefined;
    return row ? toBook(row) : null;
  }

  async findBySha256(sha256: string): Promise<Book | null> {
    const row = this.bySha.get(sha256) as BookRow | undefined;
    return row ? toBook(row) : null;
  }

  async findByIds(ids: readonly string[]): Promise<Book[]> {
    if (ids.length === 0) return [];
    return (this.byIds.all(JSON.stringify(ids)) as BookRow[]).map(toBook);
  }

  async existingIds(ids: readonly string[]): Promise<ReadonlySet<string>> {
    if (ids.length === 0) return new Set();
    return new Set(this.existing.all(JSON.stringify(ids)) as string[]);
  }

  async search(query: BookQuery): Promise<Slice<Book>> {
    return this.searcher.run(query);
  }

  private write(transaction: Transaction<(book: Book) => void>, book: Book): void {
    try {
      transaction(book);
    } catch (error) {
      if (isUniqueViolation(error) && error.message.includes('books.sha256')) {
        const existing = this.idBySha.get(book.sha256) as string | undefined;
        throw duplicateBook(existing ?? null);
      }
      throw error;
    }
  }
}

const names = (fields: string): string[] => fields.split(',').map((f) => f.trim());
const params = (fields: string): string => names(fields).map((f) => `@${f}`).join(', ');
const assignments = (fields: string): string => names(fields).map((f) => `${f} = @${f}`).join(', ');
