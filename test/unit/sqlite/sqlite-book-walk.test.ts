import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BOOK_WALK_PAGE, SqliteBookWalk } from '../../../src/adapters/sqlite/sqlite-book-walk.js';
import { createSqliteStore, type SqliteStore } from '../../../src/adapters/sqlite/sqlite-store.js';
import { bookChange } from '../../../src/domain/change-feed.js';
import { aBook, instant } from '../../support/builders.js';

const idOf = (i: number) => `w-${String(i).padStart(4, '0')}`;
const digestsOf = (i: number) => ({ partialMd5: i.toString(16).padStart(32, '0'), fileNameMd5: (i + 1e6).toString(16).padStart(32, '0') });

/** Whether a promise settles before a callback queued after it on the event loop's check phase runs. */
async function settlesWithoutYielding(work: () => Promise<unknown>): Promise<boolean> {
  let turnRan = false;
  const result = work();
  setImmediate(() => (turnRan = true));
  await result;
  return !turnRan;
}

describe('SQLite housekeeping walks over the books (SqliteBookWalk)', () => {
  let dir: string;
  let store: SqliteStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'stacks-book-walk-'));
    store = createSqliteStore(dir);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function addBooks(count: number): Promise<string[]> {
    const ids = Array.from({ length: count }, (_, i) => idOf(i));
    for (const [i, id] of ids.entries()) await store.books.create(aBook({ id, createdAt: instant(i) }));
    return ids;
  }

  it('finds exactly the books the condition holds for, in id order after any cursor, up to any limit, across pages', async () => {
    const ids = await addBooks(23);
    const hits = ids.filter((_, i) => i % 5 === 1 || i === 3 || i === 4 || i === 22); // runs, gaps, a page's first and last
    await store.changes.record(ids.filter((id) => !hits.includes(id)).map((id) => bookChange(id)), instant(0));
    const walk = new SqliteBookWalk(store.db, "NOT EXISTS (SELECT 1 FROM change_feed WHERE kind = 'book' AND entity_id = b.id)", 4);
    for (const after of [null, ...ids]) {
      for (const limit of [1, 2, 3, 7, 100]) {
        const expected = hits.filter((id) => after === null || id > after).slice(0, limit);
        expect(await walk.ids(after, limit), `after ${after}, limit ${limit}`).toEqual(expected);
      }
    }
  });

  it('ends on a page that is exactly full, and on an empty library', async () => {
    const walk = new SqliteBookWalk(store.db, '1', 4);
    expect(await walk.ids(null, 10)).toEqual([]);
    const ids = await addBooks(8);
    expect(await walk.ids(null, 100)).toEqual(ids);
    expect(await walk.ids(ids[3]!, 100)).toEqual(ids.slice(4));
  });

  it('untrackedBooks and booksWithoutDigests give the event loop a turn between pages when nearly every book is done', async () => {
    const ids = await addBooks(BOOK_WALK_PAGE * 2 + 1);
    await store.changes.record(ids.slice(0, -1).map((id) => bookChange(id)), instant(0));
    await store.digests.putMany(ids.slice(1).map((id, i) => ({ bookId: id, digests: digestsOf(i) })));

    // One statement over every book used to hold the event loop for the whole table (250,000 books: 100–230 ms).
    expect(await settlesWithoutYielding(() => store.changes.untrackedBooks(null, 500))).toBe(false);
    expect(await settlesWithoutYielding(() => store.digests.booksWithoutDigests(null, 200))).toBe(false);
    expect(await store.changes.untrackedBooks(null, 500)).toEqual([ids.at(-1)]);
    expect(await store.digests.booksWithoutDigests(null, 200)).toEqual([ids[0]]);
    expect(await store.digests.booksWithoutDigests(ids[0]!, 200)).toEqual([]);
  });
});
