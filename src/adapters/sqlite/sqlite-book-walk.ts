import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Database, Statement } from 'better-sqlite3';

/** Books read per statement by a housekeeping walk: one page costs well under a millisecond. */
export const BOOK_WALK_PAGE = 500;

/**
 * Housekeeping's "books without X" queries, walked a bounded page of the books' id index at a time:
 * `hit` is an SQL condition on the book `b` (e.g. `NOT EXISTS (…)`). One NOT EXISTS statement over the
 * whole table, when nearly every book has its X, read all of them in one synchronous call (250,000
 * books: 100–230 ms with the event loop stopped, at every start and every 6 hours); a page is one
 * indexed range of `page` books, and the walk yields to the event loop between pages.
 */
export class SqliteBookWalk {
  private readonly hitsOf: Statement;
  private readonly endOf: Statement;

  constructor(db: Database, hit: string, private readonly page = BOOK_WALK_PAGE) {
    // A page's hits, and where it ends (where the next page starts): a few rows, not `page` of them.
    this.hitsOf = db.prepare(`SELECT b.id FROM (SELECT id FROM books WHERE id > ? ORDER BY id LIMIT ?) b WHERE ${hit} ORDER BY b.id`).pluck();
    this.endOf = db.prepare('SELECT count(*) AS n, max(id) AS last FROM (SELECT id FROM books WHERE id > ? ORDER BY id LIMIT ?)');
  }

  /** Up to `limit` ids of books for which `hit` holds, in id order after `afterId`. */
  async ids(afterId: string | null, limit: number): Promise<string[]> {
    const found: string[] = [];
    for (let cursor = afterId ?? ''; ;) {
      for (const id of this.hitsOf.all(cursor, this.page) as string[]) {
        if (found.push(id) === limit) return found;
      }
      const end = this.endOf.get(cursor, this.page) as { n: number; last: string | null };
      if (end.n < this.page) return found; // a short page: the walk reached the last book
      cursor = end.last!;
      await nextTurn();
    }
  }
}
