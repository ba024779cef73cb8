import { beforeEach, describe, expect, it } from 'vitest';
import { alice, bob, errorOf, nobody, aWorld, type World } from '../../support/kit.js';

let w: World;
beforeEach(() => {
  w = aWorld();
});

describe('DeleteProgress', () => {
  it('makes the book unread again for the caller only, and is idempotent', async () => {
    const book = await w.storeBook();
    await w.updateProgress.execute(alice, { bookId: book.id, update: { percentage: 0.5 } });
    await w.updateProgress.execute(bob, { bookId: book.id, update: { percentage: 0.7 } });
    await w.deleteProgress.execute(alice, book.id);
    await w.deleteProgress.execute(alice, book.id);
    expect(await w.getProgress.execute(alice, book.id)).toMatchObject({ status: 'unread', percentage: 0, updatedAt: null });
    expect(await w.store.progress.get(bob.id, book.id)).toMatchObject({ percentage: 0.7 });
  });

  it('is book_not_found for a missing book and permission_denied without books:read', async () => {
    const book = await w.storeBook();
    expect(await errorOf(w.deleteProgress.execute(alice, 'missing'))).toMatchObject({ code: 'book_not_found' });
    expect(await errorOf(w.deleteProgress.execute(nobody, book.id))).toMatchObject({ code: 'permission_denied' });
  });
});
