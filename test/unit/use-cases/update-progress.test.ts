import { beforeEach, describe, expect, it } from 'vitest';
import { alice, errorOf, nobody, TEST_NOW, aWorld, type World } from '../../support/kit.js';

let w: World;
beforeEach(() => {
  w = aWorld();
});

const put = (bookId: string, update: { percentage: number; status?: 'unread' | 'reading' | 'finished'; locator?: string }) =>
  w.updateProgress.execute(alice, { bookId, update });

describe('UpdateProgress', () => {
  it('stores the caller\'s state with the clock\'s time and returns it', async () => {
    const book = await w.storeBook();
    const stored = await w.updateProgress.execute(alice, {
      bookId: book.id, update: { percentage: 0.42, locator: '/body/p[3]', device: 'Kobo', deviceId: 'k-1' },
    });
    expect(stored).toEqual({
      userId: alice.id, bookId: book.id, status: 'reading', percentage: 0.42, locator: '/body/p[3]', device: 'Kobo', deviceId: 'k-1', updatedAt: TEST_NOW,
    });
    expect(await w.store.progress.get(alice.id, book.id)).toEqual(stored);
  });

  it('defaults the status from the percentage: unread at 0, reading above, finished at 1; a given status wins', async () => {
    const book = await w.storeBook();
    expect((await put(book.id, { percentage: 0 })).status).toBe('unread');
    expect((await put(book.id, { percentage: 0.01 })).status).toBe('reading');
    expect((await put(book.id, { percentage: 1 })).status).toBe('finished');
    expect((await put(book.id, { percentage: 0.5, status: 'finished' })).status).toBe('finished');
  });

  it('replaces the whole record: a later write without a locator clears it', async () => {
    const book = await w.storeBook();
    await put(book.id, { percentage: 0.3, locator: 'here' });
    w.clock.advance(1_000);
    await put(book.id, { percentage: 0.4 });
    expect(await w.store.progress.get(alice.id, book.id)).toMatchObject({ percentage: 0.4, locator: null, updatedAt: new Date(TEST_NOW.getTime() + 1_000) });
  });

  it('refuses a percentage outside 0..1 and a locator over 2,048 characters, storing nothing', async () => {
    const book = await w.storeBook();
    expect(await errorOf(put(book.id, { percentage: 1.01 }))).toMatchObject({ code: 'validation_failed' });
    expect(await errorOf(put(book.id, { percentage: Number.NaN }))).toMatchObject({ code: 'validation_failed' });
    expect(await errorOf(put(book.id, { percentage: 0.5, locator: 'x'.repeat(2_049) }))).toMatchObject({ code: 'validation_failed' });
    expect(await w.store.progress.get(alice.id, book.id)).toBeNull();
  });

  it('is book_not_found for a missing book and permission_denied without books:read', async () => {
    const book = await w.storeBook();
    expect(await errorOf(put('missing', { percentage: 0.5 }))).toMatchObject({ code: 'book_not_found' });
    expect(await errorOf(w.updateProgress.execute(nobody, { bookId: book.id, update: { percentage: 0.5 } }))).toMatchObject({ code: 'permission_denied' });
    expect(await w.store.progress.get(nobody.id, book.id)).toBeNull();
  });

  it('keeps nothing when the book is deleted between the check and the write', async () => {
    const book = await w.storeBook();
    const findById = w.store.books.findById.bind(w.store.books);
    // The book is found, then deleted before the progress write lands.
    w.store.books.findById = async (id) => {
      const found = await findById(id);
      await w.store.books.delete(id);
      return found;
    };
    expect(await errorOf(put(book.id, { percentage: 0.5 }))).toMatchObject({ code: 'book_not_found' });
    expect(await w.store.progress.get(alice.id, book.id)).toBeNull();
  });
});
