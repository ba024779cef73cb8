import { beforeEach, describe, expect, it } from 'vitest';
import { alice, aShelfWorld, bob, errorOf, type World } from '../../support/kit.js';

let w: World;
let ids: (...indexes: number[]) => string[];
beforeEach(async () => {
  ({ w, ids } = await aShelfWorld());
});

describe('ListShelfBooks', () => {
  it('pages the books in shelf order', async () => {
    const shelf = await w.createShelf.execute(alice, { name: 'Paged', bookIds: ids(3, 1, 0, 2) });
    const second = await w.listShelfBooks.execute(alice, { shelfId: shelf.id, page: 2, pageSize: 3 });
    expect(second).toMatchObject({ total: 4, page: 2, pageSize: 3, totalPages: 2 });
    expect(second.items.map((b) => b.id)).toEqual(ids(2));
    const first = await w.listShelfBooks.execute(alice, { shelfId: shelf.id, page: 1, pageSize: 3 });
    expect(first.items.map((b) => b.id)).toEqual(ids(3, 1, 0));
  });

  it("answers an empty page past the end, and shelf_not_found for another user's private shelf", async () => {
    const shelf = await w.createShelf.execute(alice, { name: 'Short', bookIds: ids(0) });
    expect(await w.listShelfBooks.execute(alice, { shelfId: shelf.id, page: 3, pageSize: 20 })).toMatchObject({ items: [], total: 1, totalPages: 1 });
    expect(await errorOf(w.listShelfBooks.execute(bob, { shelfId: shelf.id, page: 1, pageSize: 20 }))).toMatchObject({ kind: 'not_found', code: 'shelf_not_found' });
  });
});
