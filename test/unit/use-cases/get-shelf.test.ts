import { beforeEach, describe, expect, it } from 'vitest';
import { alice, bob, aShelfWorld, errorOf, type World } from '../../support/kit.js';

let w: World;
let ids: (...indexes: number[]) => string[];
beforeEach(async () => {
  ({ w, ids } = await aShelfWorld());
});

describe('GetShelf', () => {
  it('drops a deleted book from every shelf at once', async () => {
    const a = await w.createShelf.execute(alice, { name: 'A', bookIds: ids(0, 1) });
    const b = await w.createShelf.execute(bob, { name: 'B', isPublic: true, bookIds: ids(1, 2) });
    const gone = ids(1)[0] as string;
    await w.store.books.delete(gone);
    w.clock.advance(1000);
    await w.store.shelves.removeBookEverywhere(gone, w.clock.now());
    expect((await w.getShelf.execute(alice, a.id)).bookIds).toEqual(ids(0));
    expect((await w.getShelf.execute(bob, b.id)).bookIds).toEqual(ids(2));
    expect((await w.listShelfBooks.execute(alice, { shelfId: b.id, page: 1, pageSize: 20 })).items.map((x) => x.id)).toEqual(ids(2));
  });

  it("reads the caller's own private shelf, and answers shelf_not_found for another user's", async () => {
    const shelf = await w.createShelf.execute(alice, { name: 'Mine', bookIds: ids(0) });
    expect(await w.getShelf.execute(alice, shelf.id)).toEqual(shelf);
    expect(await errorOf(w.getShelf.execute(bob, shelf.id))).toMatchObject({ kind: 'not_found', code: 'shelf_not_found' });
  });
});
