import { beforeEach, describe, expect, it } from 'vitest';
import type { Book } from '../../../src/domain/book.js';
import { alice, bob, aWorld, errorOf, type World } from '../../support/kit.js';

let w: World;
let books: Book[];
const ids = (...indexes: number[]) => indexes.map((i) => (books[i] as Book).id);
beforeEach(async () => {
  w = aWorld({ idPrefix: 'shelf-' });
  books = await w.storeBooks(4);
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
});
