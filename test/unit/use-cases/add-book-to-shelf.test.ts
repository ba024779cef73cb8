import { beforeEach, describe, expect, it } from 'vitest';
import { alice, aShelfWorld, errorOf, type World } from '../../support/kit.js';

let w: World;
let ids: (...indexes: number[]) => string[];
beforeEach(async () => {
  ({ w, ids } = await aShelfWorld());
});

describe('AddBookToShelf', () => {
  it('appends at the end and is idempotent', async () => {
    const shelf = await w.createShelf.execute(alice, { name: 'Queue', bookIds: ids(0) });
    expect(await w.addBookToShelf.execute(alice, { shelfId: shelf.id, bookId: ids(2)[0] as string })).toEqual({ added: true });
    expect(await w.addBookToShelf.execute(alice, { shelfId: shelf.id, bookId: ids(1)[0] as string })).toEqual({ added: true });
    expect(await w.addBookToShelf.execute(alice, { shelfId: shelf.id, bookId: ids(0)[0] as string })).toEqual({ added: false });
    expect((await w.store.shelves.findById(shelf.id))?.bookIds).toEqual(ids(0, 2, 1));
  });

  it('refuses to add a book that does not exist', async () => {
    const shelf = await w.createShelf.execute(alice, { name: 'Queue' });
    expect(await errorOf(w.addBookToShelf.execute(alice, { shelfId: shelf.id, bookId: 'ghost' }))).toMatchObject({ kind: 'not_found', code: 'book_not_found' });
  });
});
