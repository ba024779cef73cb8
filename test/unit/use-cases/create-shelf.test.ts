import { beforeEach, describe, expect, it } from 'vitest';
import { alice, bob, aShelfWorld, errorOf, type World } from '../../support/kit.js';

let w: World;
let ids: (...indexes: number[]) => string[];
beforeEach(async () => {
  ({ w, ids } = await aShelfWorld());
});

describe('CreateShelf', () => {
  it('creates a shelf owned by the caller with trimmed name, the clock time and the next id', async () => {
    const shelf = await w.createShelf.execute(alice, { name: '  To read  ', description: ' Soon ', bookIds: ids(2, 0) });
    const expected = {
      id: 'shelf-1', name: 'To read', description: 'Soon', isPublic: false, owner: { id: 'alice', username: 'alice' },
      bookIds: ids(2, 0), bookCount: 2, createdAt: w.clock.now(), updatedAt: w.clock.now(),
    };
    expect(shelf).toEqual(expected);
    expect(await w.store.shelves.findById('shelf-1')).toEqual(expected);
  });

  it('refuses a second shelf with the same name for the same owner, ignoring case and spaces', async () => {
    await w.createShelf.execute(alice, { name: 'Favourites' });
    expect(await errorOf(w.createShelf.execute(alice, { name: '  FAVOURITES ' }))).toMatchObject({ kind: 'conflict', code: 'shelf_name_taken' });
    expect((await w.createShelf.execute(bob, { name: 'Favourites' })).owner.id).toBe('bob');
    const other = await w.createShelf.execute(alice, { name: 'Other' });
    expect((await errorOf(w.updateShelf.execute(alice, { shelfId: other.id, name: 'favourites' }))).code).toBe('shelf_name_taken');
    expect((await w.updateShelf.execute(alice, { shelfId: other.id, name: 'OTHER' })).name).toBe('OTHER');
  });

  it('refuses unknown and repeated book ids with validation_failed and stores nothing', async () => {
    const unknown = await errorOf(w.createShelf.execute(alice, { name: 'A', bookIds: [...ids(0), 'ghost'] }));
    expect(unknown).toMatchObject({ kind: 'validation', code: 'validation_failed' });
    expect(unknown.errors).toEqual([{ field: 'book_ids.1', message: "no book with id 'ghost'" }]);
    const repeated = await errorOf(w.createShelf.execute(alice, { name: 'A', bookIds: ids(0, 1, 0) }));
    expect(repeated.errors).toEqual([expect.objectContaining({ field: 'book_ids.2' })]);
    expect((await errorOf(w.createShelf.execute(alice, { name: '   ' }))).code).toBe('validation_failed');
    expect((await w.listShelves.execute(alice, { onlyOwn: true, page: 1, pageSize: 20 })).total).toBe(0);
  });
});
