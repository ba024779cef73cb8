import type { Database, Statement } from 'better-sqlite3';
import type { Book, BookQuery } from '../../domain/book.js';
import { offsetOf } from '../../domain/page.js';
import type { Slice } from '../../application/ports.js';
import type { BookRow } from './sqlite-book-rows.js';
import { BOOK_COLUMNS, toBook } from './sqlite-book-rows.js';

interface Statements {
  readonly count: Statement;
  /** The reader's books with a record, by index reading_progress_recent (user_id, updated_at). */
  readonly read: Statement;
  readonly readCount: Statement;
  /** Every other matching book, walking the unique index on books.id. */
  readonly rest: Statement;
}

/**
 * The `read` sort: the reader's books with a progress record by its time (ties by id), then every other
 * matching book by id, the page cut across both parts. Neither part sorts the whole library.
 */
export class SqliteReadOrder {
  private readonly shapes = new Map<string, Statements>();

  constructor(private readonly db: Database) {}

  run(where: readonly string[], params: Record<string, unknown>, query: BookQuery): Slice<Book> {
    const s = this.statements(where, query.sort.descending);
    const p = { ...params, reader: query.reader ?? '' };
    const total = s.count.get(p) as number;
    const readTotal = s.readCount.get(p) as number;
    const offset = offsetOf(query);
    const rows = offset < readTotal ? (s.read.all({ ...p, limit: query.pageSize, offset }) as BookRow[]) : [];
    const wanted = query.pageSize - rows.length;
    if (wanted > 0 && total > readTotal) rows.push(...(s.rest.all({ ...p, limit: wanted, offset: Math.max(0, offset - readTotal) }) as BookRow[]));
    return { items: rows.map(toBook), total };
  }

  private statements(where: readonly string[], descending: boolean): Statements {
    const key = `${where.join(' AND ')}|${descending}`;
    let statements = this.shapes.get(key);
    if (!statements) {
      const dir = descending ? 'DESC' : 'ASC';
      const and = where.map((clause) => ` AND ${clause}`).join('');
      const readFrom = `FROM (SELECT book_id, updated_at AS read_at FROM reading_progress WHERE user_id = @reader) rp
        JOIN books ON books.id = rp.book_id WHERE 1${and}`;
      statements = {
        count: this.db.prepare(`SELECT count(*) FROM books WHERE 1${and}`).pluck(),
        read: this.db.prepare(`SELECT ${BOOK_COLUMNS} ${readFrom} ORDER BY rp.read_at ${dir}, books.id ${dir} LIMIT @limit OFFSET @offset`),
        readCount: this.db.prepare(`SELECT count(*) ${readFrom}`).pluck(),
        rest: this.db.prepare(`SELECT ${BOOK_COLUMNS} FROM books
          WHERE books.id NOT IN (SELECT book_id FROM reading_progress WHERE user_id = @reader)${and}
          ORDER BY books.id ${dir} LIMIT @limit OFFSET @offset`),
      };
      this.shapes.set(key, statements);
    }
    return statements;
  }
}
