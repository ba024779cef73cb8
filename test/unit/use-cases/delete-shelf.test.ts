import { beforeEach, describe, expect, it } from 'vitest';
import { alice, aShelfWorld, bob, errorOf, type World } from '../../support/kit.js';

let w: World;
let ids: (...indexes: number[]) => string[];
beforeEach(async () => {
  ({ w, ids } = await aShelfWorld());
});

describe('DeleteShelf', () => {
  it('deletes a shelf but keeps its books', async () => {
    const shelf = await w.createShelf.execute(alice, { name: 'Gone', bookIds: ids(0, 1) });
    await w.deleteShelf.execute(alice, shelf.id);
    expect(await w.store.shelves.findById(shelf.id)).toBeNull();
    expect((await w.store.books.findByIds(ids(0, 1))).map((b) => b.id).sort()).toEqual(ids(0, 1).sort());
  });

  it("answers shelf_not_found for an unknown shelf and permission_denied on someone else's public shelf, deleting nothing", async () => {
    const shelf = await w.createShelf.execute(alice, { name: 'Shared', isPublic: true });
    expect(await errorOf(w.deleteShelf.execute(alice, 'ghost'))).toMatchObject({ kind: 'not_found', code: 'shelf_not_found' });
    expect(await errorOf(w.deleteShelf.execute(bob, shelf.id))).toMatchObject({ kind: 'forbidden', code: 'permission_denied' });
    expect(await w.store.shelves.findById(shelf.id)).toEqual(shelf);
  });
});
