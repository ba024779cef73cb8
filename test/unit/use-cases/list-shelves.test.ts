import { beforeEach, describe, expect, it } from 'vitest';
import { alice, aShelfWorld, bob, errorOf, nobody, type World } from '../../support/kit.js';

let w: World;
let ids: (...indexes: number[]) => string[];
beforeEach(async () => {
  ({ w, ids } = await aShelfWorld());
});

describe('ListShelves', () => {
  it('lists own and public shelves by name, or only own ones', async () => {
    await w.createShelf.execute(bob, { name: 'Bob public', isPublic: true });
    await w.createShelf.execute(bob, { name: 'Bob private' });
    await w.createShelf.execute(alice, { name: 'alice private' });
    const all = await w.listShelves.execute(alice, { onlyOwn: false, page: 1, pageSize: 20 });
    expect(all.items.map((s) => s.name)).toEqual(['alice private', 'Bob public']);
    const own = await w.listShelves.execute(alice, { onlyOwn: true, page: 1, pageSize: 20 });
    expect(own.items.map((s) => s.name)).toEqual(['alice private']);
  });

  it('pages by name with the total, and is permission_denied without shelves:read', async () => {
    for (const name of ['c', 'a', 'b']) await w.createShelf.execute(alice, { name });
    const second = await w.listShelves.execute(alice, { onlyOwn: true, page: 2, pageSize: 2 });
    expect(second).toMatchObject({ total: 3, page: 2, pageSize: 2, totalPages: 2 });
    expect(second.items.map((s) => s.name)).toEqual(['c']);
    expect(await errorOf(w.listShelves.execute(nobody, { onlyOwn: false, page: 1, pageSize: 20 }))).toMatchObject({ kind: 'forbidden', code: 'permission_denied' });
  });
});
