import type { Database, Statement } from 'better-sqlite3';
import type { Book, BookQuery, BookSort } from '../../domain/book.js';
import type { ReadingStatus } from '../../domain/reading-progress.js';
import { offsetOf } from '../../domain/page.js';
import type { Slice } from '../../application/ports.js';
import type { BookRow } from './sqlite-book-rows.js';
import { BOOK_COLUMNS, toBook } from './sqlite-book-rows.js';
import { SqliteReadOrder } from './sqlite-read-order.js';

/**
 * The FTS5 trigram index answers substrings of at least this many characters; shorter ones, and any
 * holding a NUL (which ends an FTS5 query string), scan with instr, which compares every byte.
 */
const TRIGRAM = 3;
/** Above this many matches a page is found by walking the sort index, not by sorting every match. */
const DENSE = 500;

interface Prepared {
  /** Fetches and sorts every match: cheapest when there are few. */
  readonly sparse: Statement;
  /** Walks the sort's covering index and fetches only the page's rows: bounded by the library size. */
  readonly dense: Statement | null;
  readonly count: Statement;
}

/**
 * Book search: one set of prepared statements per query shape, built on first use. A trigram query
 * is answered by the FTS5 index alone (a trigram phrase matches exactly the rows holding the substring).
 */
export class SqliteBookSearch {
  private readonly shapes = new Map<string, Prepared>();
  private readonly readOrder: SqliteReadOrder;

  constructor(private readonly db: Database) {
    this.readOrder = new SqliteReadOrder(db);
  }

  run(query: BookQuery): Slice<Book> {
    const q = query.q ? query.q.toLowerCase() : undefined;
    const params: Record<string, unknown> = {};
    const where: string[] = [];
    let ftsOnly = false;
    if (q !== undefined) {
      if ([...q].length >= TRIGRAM && !q.includes('\0')) {
        where.push('books.seq IN (SELECT rowid FROM book_search WHERE book_search MATCH @match)');
        params.match = `"${q.replaceAll('"', '""')}"`;
        ftsOnly = true;
      } else {
        where.push('instr(search_text, @needle) > 0');
        params.needle = q;
      }
    }
    if (query.author !== undefined) {
      where.push('books.id IN (SELECT book_id FROM book_authors WHERE name_key = @author)');
      params.author = query.author.toLowerCase();
    }
    if (query.tag !== undefined) {
      where.push('books.id IN (SELECT book_id FROM book_tags WHERE tag_key = @tag)');
      params.tag = query.tag.toLowerCase();
    }
    if (query.format !== undefined) {
      where.push('format = @format');
      params.format = query.format;
    }
    params.reader = query.reader ?? '';
    if (query.status !== undefined) where.push(statusClause(query.status, params));
    if (query.sort.field === 'read') return this.readOrder.run(where, params, query);
    const prepared = this.prepared(where, query.sort, ftsOnly && where.length === 1);
    const total = prepared.count.get(params) as number;
    const statement = prepared.dense && (where.length === 0 || total > DENSE) ? prepared.dense : prepared.sparse;
    const rows = statement.all({ ...params, limit: query.pageSize, offset: offsetOf(query) }) as BookRow[];
    return { items: rows.map(toBook), total };
  }

  private prepared(where: string[], sort: BookSort, ftsOnly: boolean): Prepared {
    const key = `${where.join(' AND ')}|${sort.field}|${sort.descending}`;
    let prepared = this.shapes.get(key);
    if (!prepared) {
      const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
      const order = orderBy(sort);
      // Every sort index holds the sort keys, the id and the rowid, so only the format filter needs the row.
      const indexable = where.every((clause) => !clause.startsWith('format') && !clause.startsWith('instr'));
      prepared = {
        sparse: this.db.prepare(`SELECT ${BOOK_COLUMNS} FROM books ${filter} ORDER BY ${order} LIMIT @limit OFFSET @offset`),
        dense: indexable
          ? this.db.prepare(`SELECT ${BOOK_COLUMNS} FROM books WHERE seq IN (SELECT seq FROM books INDEXED BY ${sortIndex(sort)} ${filter}
              ORDER BY ${order} LIMIT @limit OFFSET @offset) ORDER BY ${order}`)
          : null,
        count: ftsOnly
          ? this.db.prepare('SELECT count(*) FROM book_search WHERE book_search MATCH @match').pluck()
          : this.db.prepare(`SELECT count(*) FROM books ${filter}`).pluck(),
      };
      this.shapes.set(key, prepared);
    }
    return prepared;
  }
}

/**
 * The reader's `status` (no record means unread). Both read the reader's rows through the primary key
 * prefix (user_id); `unread` excludes the books with a reading or finished record.
 */
function statusClause(status: ReadingStatus, params: Record<string, unknown>): string {
  if (status === 'unread') return "books.id NOT IN (SELECT book_id FROM reading_progress WHERE user_id = @reader AND status <> 'unread')";
  params.status = status;
  return 'books.id IN (SELECT book_id FROM reading_progress WHERE user_id = @reader AND status = @status)';
}

/** Key then id, both in the requested direction; a missing author or date sorts last either way. */
function orderBy(sort: BookSort): string {
  const dir = sort.descending ? 'DESC' : 'ASC';
  switch (sort.field) {
    case 'read':
      throw new Error('The read sort is SqliteReadOrder\'s.');
    case 'title':
      return `title_key ${dir}, books.id ${dir}`;
    case 'author':
      return `author_key IS NULL, author_key ${dir}, books.id ${dir}`;
    case 'added':
      return `created_at ${dir}, books.id ${dir}`;
    case 'published':
      return `published IS NULL, published ${dir}, books.id ${dir}`;
  }
}

/** The index (migration 1) whose order is orderBy(sort), read forwards or backwards. */
function sortIndex(sort: BookSort): string {
  switch (sort.field) {
    case 'read':
      throw new Error('The read sort is SqliteReadOrder\'s.');
    case 'title':
      return 'books_title';
    case 'author':
      return sort.descending ? 'books_author_desc' : 'books_author_asc';
    case 'added':
      return 'books_added';
    case 'published':
      return sort.descending ? 'books_published_desc' : 'books_published_asc';
  }
}
