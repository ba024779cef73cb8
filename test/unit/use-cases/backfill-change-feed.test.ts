import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../../src/adapters/memory/memory-store.js';
import { BackfillChangeFeed } from '../../../src/application/use-cases/backfill-change-feed.js';
import { bookChange, CHANGE_TOMBSTONE_TTL_MS, progressChange } from '../../../src/domain/change-feed.js';
import { aBook, aUser, instant } from '../../support/builders.js';
import { FakeClock } from '../../support/clock.js';

const idOf = (i: number) => `f-${String(i).padStart(4, '0')}`;

async function libraryOf(count: number) {
  const store = createMemoryStore();
  const clock = new FakeClock();
  const ids = Array.from({ length: count }, (_, i) => idOf(i));
  for (const [i, id] of ids.entries()) await store.books.create(aBook({ id, createdAt: instant(i) }));
  return { store, clock, ids, reconcile: new BackfillChangeFeed(store.changes, store.books, clock) };
}

describe('BackfillChangeFeed (housekeeping: change feed reconciled)', () => {
  it('records the books without an entry, marks the entries of books gone, and forgets removals past their time', async () => {
    const { store, clock, ids, reconcile } = await libraryOf(1_203);
    await store.changes.record([...ids.slice(0, 1_100), 'gone-1', 'gone-2'].map((id) => bookChange(id)), clock.now());
    await store.changes.record([bookChange('gone-old', true)], clock.now());
    clock.advance(CHANGE_TOMBSTONE_TTL_MS + 1);

    expect(await reconcile.execute()).toEqual({ booksAdded: 103, booksMarkedRemoved: 2, progressRecorded: 0, removalsPurged: 1 });
    expect(await store.changes.untrackedBooks(null, 2_000)).toEqual([]);
    expect((await store.changes.presentBooks(null, 2_000)).length).toBe(1_203);
    const removals = (await store.changes.since('book', [''], 0, 2_000)).filter((c) => c.removed).map((c) => c.entityId);
    expect(removals.sort()).toEqual(['gone-1', 'gone-2']);
    expect(await reconcile.execute()).toEqual({ booksAdded: 0, booksMarkedRemoved: 0, progressRecorded: 0, removalsPurged: 0 });
  });

  it('lets the event loop serve other work between batches, also on a store whose calls finish at once', async () => {
    const { store, clock, ids, reconcile } = await libraryOf(1_001);
    await store.changes.record(ids.map((id) => bookChange(id)), clock.now());
    let turns = 0;
    const timer = setInterval(() => (turns += 1), 0);
    try {
      await reconcile.execute();
    } finally {
      clearInterval(timer);
    }
    // Three batches of present entries (500, 500, 1): a turn after each of the first two at least.
    expect(turns).toBeGreaterThanOrEqual(2);
  });

  it('records again the reading states whose entry a crash lost, in windows, so a Kobo reading from its cursor receives them', async () => {
    const { store, clock, ids, reconcile } = await libraryOf(1_203);
    await store.users.create(aUser({ id: 'reader', username: 'reader', email: 'reader@example.test' }));
    await store.changes.record(ids.map((id) => bookChange(id)), clock.now());
    const save = (bookId: string) => store.progress.put({
      userId: 'reader', bookId, status: 'reading', percentage: 0.5, locator: null, device: null, deviceId: null, updatedAt: clock.now(),
    });
    // Every book read once with its entry; then every third read again, its new entry lost.
    for (const id of ids) await save(id);
    await store.changes.record(ids.map((id) => progressChange('reader', id)), clock.now());
    clock.advance(1_000);
    const lost = ids.filter((_, i) => i % 3 === 0);
    for (const id of lost) await save(id);
    const cursor = await store.changes.head();

    expect(await reconcile.execute()).toMatchObject({ booksAdded: 0, booksMarkedRemoved: 0, progressRecorded: lost.length });
    const resent = await store.changes.since('progress', ['reader'], cursor, 2_000);
    expect(resent.map((c) => c.entityId).sort()).toEqual(lost.map((id) => `reader/${id}`).sort());
    expect(await reconcile.execute()).toMatchObject({ progressRecorded: 0 });
  });
});
