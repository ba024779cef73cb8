import type { Database, Statement } from 'better-sqlite3';
import type { Book, BookQuery, BookSort } from '../../domain/book.js';
import { offsetOf } from '../../domain/page.js';
import type { Slice } from '../../application/ports.js';
import type { SqliteBookCounts } from './sqlite-book-counts.js';
import type { BookRow } from './sqlite-book-rows.js';
import { BOOK_COLUMNS, toBook } from './sqlite-book-rows.js';
import { SqliteReadOrder } from './sqlite-read-order.js';
import { clausesOf, orderBy, sortIndex, type Clause, type Estimate } from './sqlite-search-clauses.js';

/**
 * Fetching and sorting every match costs about this many times more per match than checking one entry
 * of a sort index while walking it (the sort holds whole rows).
 */
const SORT_COST = 4;

/**
 * Book search. The total is exact: from `book_counts` when one condition has a maintained count (a tag,
 * an author, a format, a `q` of one or two characters, or none: the library), else count(*) through the
 * index of the condition that lists the fewest books, the others checked per book. The page comes from
 * the cheaper of two plans by estimate:
 * - walk: read the sort's index in order, check each book, stop at the page's end: about
 *   (offset + page size) × library / matches entries, so cheap when many books match;
 * - sorted: fetch every book the smallest index lists, check the rest, sort: cheap when few match.
 * Statements are prepared once per query shape.
 */
export class SqliteBookSearch {
  private readonly statements = new Map<string, Statement>();
  private readonly readOrder: SqliteReadOrder;

  constructor(private readonly db: Database, private readonly counts: SqliteBookCounts) {
    this.readOrder = new SqliteReadOrder(db);
  }

  run(query: BookQuery): Slice<Book> {
    const params: Record<string, unknown> = { reader: query.reader ?? '' };
    const clauses = clausesOf(query, params);
    const library = this.counts.get('all');
    const driver = this.driver(clauses, library);
    const conditions = clauses.map((c) => (c === driver?.clause ? c.drive : c.check) as string);
    if (query.sort.field === 'read') return this.readOrder.run(conditions, params, query);
    const total = this.total(clauses, conditions, params, library);
    const offset = offsetOf(query);
    if (total === 0 || offset >= total) return { items: [], total };
    const walked = Math.min(library, ((offset + query.pageSize) * library) / total);
    const sorted = (driver?.books ?? library) + SORT_COST * total;
    const statement = walked <= sorted ? this.walk(clauses, query.sort) : this.sorted(conditions, query.sort);
    const rows = statement.all({ ...params, limit: query.pageSize, offset }) as BookRow[];
    return { items: rows.map(toBook), total };
  }

  /** The condition whose index lists the fewest books, with that estimate. */
  private driver(clauses: readonly Clause[], library: number): { clause: Clause; books: number } | null {
    let best: { clause: Clause; books: number } | null = null;
    for (const clause of clauses) {
      if (clause.drive === null) continue;
      const books = this.estimate(clause.estimate, library);
      if (!best || books < best.books) best = { clause, books };
    }
    return best;
  }

  private estimate(estimate: Estimate, library: number): number {
    switch (estimate.by) {
      case 'count':
        return this.counts.get(estimate.kind, estimate.key);
      case 'share':
        return library * estimate.share;
      case 'few':
        return 0;
    }
  }

  private total(clauses: readonly Clause[], conditions: readonly string[], params: Record<string, unknown>, library: number): number {
    if (clauses.length === 0) return library;
    const [only] = clauses as [Clause];
    if (clauses.length === 1 && only.estimate.by === 'count') return this.counts.get(only.estimate.kind, only.estimate.key);
    const sql = clauses.length === 1 && only.countAlone ? only.countAlone : `SELECT count(*) FROM books WHERE ${conditions.join(' AND ')}`;
    return this.prepare(sql, (s) => s.pluck()).get(params) as number;
  }

  /** Walks the sort's index; only the page's rows are read unless a check needs the row. */
  private walk(clauses: readonly Clause[], sort: BookSort): Statement {
    const order = orderBy(sort);
    const filter = clauses.length > 0 ? `WHERE ${clauses.map((c) => c.check).join(' AND ')}` : '';
    const walk = `FROM books INDEXED BY ${sortIndex(sort)} ${filter} ORDER BY ${order} LIMIT @limit OFFSET @offset`;
    return this.prepare(clauses.some((c) => c.readsRow)
      ? `SELECT ${BOOK_COLUMNS} ${walk}`
      : `SELECT ${BOOK_COLUMNS} FROM books WHERE seq IN (SELECT seq ${walk}) ORDER BY ${order}`);
  }

  /** Fetches every match and sorts them. */
  private sorted(conditions: readonly string[], sort: BookSort): Statement {
    return this.prepare(`SELECT ${BOOK_COLUMNS} FROM books WHERE ${conditions.join(' AND ')} ORDER BY ${orderBy(sort)} LIMIT @limit OFFSET @offset`);
  }

  private prepare(sql: string, shape: (statement: Statement) => Statement = (s) => s): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = shape(this.db.prepare(sql));
      this.statements.set(sql, statement);
    }
    return statement;
  }
}
