import type { Database, Statement } from 'better-sqlite3';
import type { Book, BookQuery, BookSort } from '../../domain/book.js';
import { offsetOf } from '../../domain/page.js';
import type { Slice } from '../../application/ports.js';
import type { BookRow } from './sqlite-book-rows.js';
import { BOOK_COLUMNS, toBook } from './sqlite-book-rows.js';

/** The FTS5 trigram index answers substrings of at least this many characters; shorter ones scan. */
const TRIGRAM = 3;

interface Prepared {
  readonly page: Statement;
  readonly count: Statement;
}

/** Book search: one pair of prepared statements per query shape, built on first use. */
export class SqliteBookSearch {
  private readonly shapes = new Map<string, Prepared>();

  constructor(private readonly db: Database) {}

  run(query: BookQuery): Slice<Book> {
    const q = query.q ? query.q.toLowerCase() : undefined;
    const indexed = q !== undefined && [...q].length >= TRIGRAM;
    const params: Record<string, unknown> = {};
    const where: string[] = [];
    if (q !== undefined) {
      if (indexed) {
        where.push('books.seq IN (SELECT rowid FROM book_search WHERE book_search MATCH @match)');
        params.match = `"${q.replaceAll('"', '""')}"`;
      }
      where.push("search_text LIKE @like ESCAPE '\\'");
      params.like = `%${q.replace(/[\\%_]/g, '\\$&')}%`;
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
    const { page, count } = this.prepared(where, query.sort);
    const rows = page.all({ ...params, limit: query.pageSize, offset: offsetOf(query) }) as BookRow[];
    return { items: rows.map(toBook), total: count.get(params) as number };
  }

  private prepared(where: string[], sort: BookSort): Prepared {
    const key = `${where.join(' AND ')}|${sort.field}|${sort.descending}`;
    let prepared = this.shapes.get(key);
    if (!prepared) {
      const filter = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
      prepared = {
        page: this.db.prepare(`SELECT ${BOOK_COLUMNS} FROM books ${filter} ORDER BY ${orderBy(sort)} LIMIT @limit OFFSET @offset`),
        count: this.db.prepare(`SELECT count(*) FROM books ${filter}`).pluck(),
      };
      this.shapes.set(key, prepared);
    }
    return prepared;
  }
}

/** Key then id, both in the requested direction; a missing author or date sorts last either way. */
function orderBy(sort: BookSort): string {
  const dir = sort.descending ? 'DESC' : 'ASC';
  switch (sort.field) {
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
