import { beforeEach, describe, expect, it } from 'vitest';
import { alice, aShelfWorld, errorOf, type World } from '../../support/kit.js';

let w: World;
let ids: (...indexes: number[]) => string[];
beforeEach(async () => {
  ({ w, ids } = await aShelfWorld());
});

describe('RemoveBookFromShelf', () => {
  it('removes a book, and answers book_not_on_shelf when it was not there', async () => {
    const shelf = await w.createShelf.execute(alice, { name: 'Queue', bookIds: ids(0, 1) });
    await w.removeBookFromShelf.execute(alice, { shelfId: shelf.id, bookId: ids(0)[0] as string });
    expect((await w.store.shelves.findById(shelf.id))?.bookIds).toEqual(ids(1));
    expect(await errorOf(w.removeBookFromShelf.execute(alice, { shelfId: shelf.id, bookId: ids(0)[0] as string })))
      .toMatchObject({ kind: 'not_found', code: 'book_not_on_shelf' });
    expect((await w.store.books.findById(ids(0)[0] as string))?.id).toBe(ids(0)[0]);
  });
});
