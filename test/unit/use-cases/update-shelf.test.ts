import { beforeEach, describe, expect, it } from 'vitest';
import { alice, aShelfWorld, errorOf, type World } from '../../support/kit.js';

let w: World;
let ids: (...indexes: number[]) => string[];
beforeEach(async () => {
  ({ w, ids } = await aShelfWorld());
});

describe('UpdateShelf', () => {
  it('reorders and replaces the books with the full list, touching updatedAt only', async () => {
    const shelf = await w.createShelf.execute(alice, { name: 'Series', bookIds: ids(0, 1, 2) });
    w.clock.advance(60_000);
    const updated = await w.updateShelf.execute(alice, { shelfId: shelf.id, bookIds: ids(2, 0, 3) });
    expect(updated).toMatchObject({ name: 'Series', bookIds: ids(2, 0, 3), bookCount: 3, createdAt: shelf.createdAt, updatedAt: w.clock.now() });
    expect((await w.updateShelf.execute(alice, { shelfId: shelf.id, bookIds: [] })).bookCount).toBe(0);
  });

  it('leaves the books alone when only details change, and the details alone when a book list is refused', async () => {
    const shelf = await w.createShelf.execute(alice, { name: 'Keep', description: 'kept', bookIds: ids(1, 0) });
    const renamed = await w.updateShelf.execute(alice, { shelfId: shelf.id, name: 'Kept', isPublic: true });
    expect(renamed).toMatchObject({ name: 'Kept', description: 'kept', isPublic: true, bookIds: ids(1, 0) });
    expect((await w.updateShelf.execute(alice, { shelfId: shelf.id, description: null })).description).toBeNull();
    await errorOf(w.updateShelf.execute(alice, { shelfId: shelf.id, name: 'Changed', bookIds: ['ghost'] }));
    expect(await w.store.shelves.findById(shelf.id)).toMatchObject({ name: 'Kept', bookIds: ids(1, 0) });
  });
});
