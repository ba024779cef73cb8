import { beforeEach, describe, expect, it } from 'vitest';
import { alice, bob, errorOf, nobody, TEST_NOW, aWorld, type World } from '../../support/kit.js';

let w: World;
beforeEach(() => {
  w = aWorld();
});

describe('GetProgress', () => {
  it('is unread at 0 with no time for a book the caller never opened', async () => {
    const book = await w.storeBook();
    expect(await w.getProgress.execute(alice, book.id)).toEqual({
      userId: alice.id, bookId: book.id, status: 'unread', percentage: 0, locator: null, device: null, deviceId: null, updatedAt: null,
    });
  });

  it('gives the caller their own state, not another reader\'s', async () => {
    const book = await w.storeBook();
    await w.updateProgress.execute(bob, { bookId: book.id, update: { percentage: 0.9, locator: 'bob-loc' } });
    await w.updateProgress.execute(alice, { bookId: book.id, update: { percentage: 0.2, locator: 'alice-loc' } });
    expect(await w.getProgress.execute(alice, book.id)).toMatchObject({ percentage: 0.2, locator: 'alice-loc', status: 'reading', updatedAt: TEST_NOW });
  });

  it('is book_not_found for a missing book and permission_denied without books:read', async () => {
    const book = await w.storeBook();
    expect(await errorOf(w.getProgress.execute(alice, 'missing'))).toMatchObject({ code: 'book_not_found' });
    expect(await errorOf(w.getProgress.execute(nobody, book.id))).toMatchObject({ code: 'permission_denied' });
  });
});
