import { beforeEach, describe, expect, it } from 'vitest';
import type { Book } from '../../../src/domain/book.js';
import { alice, bob, errorOf, shelfWorld, type ShelfWorld } from './shelf-world.js';

let w: ShelfWorld;
let books: Book[];
const ids = (...indexes: number[]) => indexes.map((i) => (books[i] as Book).id);
beforeEach(async () => {
  w = shelfWorld();
  books = await w.storeBooks(4);
});

describe('creating and changing shelves', () => {
  it('creates a shelf owned by the caller with trimmed name, the clock time and the next id', async () => {
    const shelf = await w.create.execute(alice, { name: '  To read  ', description: ' Soon ', bookIds: ids(2, 0) });
    const expected = {
      id: 'shelf-1', name: 'To read', description: 'Soon', isPublic: false, owner: { id: 'alice', username: 'alice' },
      bookIds: ids(2, 0), bookCount: 2, createdAt: w.clock.now(), updatedAt: w.clock.now(),
    };
    expect(shelf).toEqual(expected);
    expect(await w.shelves.findById('shelf-1')).toEqual(expected);
  });

  it('refuses a second shelf with the same name for the same owner, ignoring case and spaces', async () => {
    await w.create.execute(alice, { name: 'Favourites' });
    expect(await errorOf(w.create.execute(alice, { name: '  FAVOURITES ' }))).toMatchObject({ kind: 'conflict', code: 'shelf_name_taken' });
    expect((await w.create.execute(bob, { name: 'Favourites' })).owner.id).toBe('bob');
    const other = await w.create.execute(alice, { name: 'Other' });
    expect((await errorOf(w.update.execute(alice, { shelfId: other.id, name: 'favourites' }))).code).toBe('shelf_name_taken');
    expect((await w.update.execute(alice, { shelfId: other.id, name: 'OTHER' })).name).toBe('OTHER');
  });

  it('refuses unknown and repeated book ids with validation_failed and stores nothing', async () => {
    const unknown = await errorOf(w.create.execute(alice, { name: 'A', bookIds: [...ids(0), 'ghost'] }));
    expect(unknown).toMatchObject({ kind: 'validation', code: 'validation_failed' });
    expect(unknown.errors).toEqual([{ field: 'book_ids.1', message: "no book with id 'ghost'" }]);
    const repeated = await errorOf(w.create.execute(alice, { name: 'A', bookIds: ids(0, 1, 0) }));
    expect(repeated.errors).toEqual([expect.objectContaining({ field: 'book_ids.2' })]);
    expect((await errorOf(w.create.execute(alice, { name: '   ' }))).code).toBe('validation_failed');
    expect((await w.list.execute(alice, { onlyOwn: true, page: 1, pageSize: 20 })).total).toBe(0);
  });

  it('reorders and replaces the books with the full list, touching updatedAt only', async () => {
    const shelf = await w.create.execute(alice, { name: 'Series', bookIds: ids(0, 1, 2) });
    w.clock.advance(60_000);
    const updated = await w.update.execute(alice, { shelfId: shelf.id, bookIds: ids(2, 0, 3) });
    expect(updated).toMatchObject({ name: 'Series', bookIds: ids(2, 0, 3), bookCount: 3, createdAt: shelf.createdAt, updatedAt: w.clock.now() });
    expect((await w.update.execute(alice, { shelfId: shelf.id, bookIds: [] })).bookCount).toBe(0);
  });

  it('leaves the books alone when only details change, and the details alone when a book list is refused', async () => {
    const shelf = await w.create.execute(alice, { name: 'Keep', description: 'kept', bookIds: ids(1, 0) });
    const renamed = await w.update.execute(alice, { shelfId: shelf.id, name: 'Kept', isPublic: true });
    expect(renamed).toMatchObject({ name: 'Kept', description: 'kept', isPublic: true, bookIds: ids(1, 0) });
    expect((await w.update.execute(alice, { shelfId: shelf.id, description: null })).description).toBeNull();
    await errorOf(w.update.execute(alice, { shelfId: shelf.id, name: 'Changed', bookIds: ['ghost'] }));
    expect(await w.shelves.findById(shelf.id)).toMatchObject({ name: 'Kept', bookIds: ids(1, 0) });
  });

  it('deletes a shelf but keeps its books', async () => {
    const shelf = await w.create.execute(alice, { name: 'Gone', bookIds: ids(0, 1) });
    await w.remove.execute(alice, shelf.id);
    expect(await w.shelves.findById(shelf.id)).toBeNull();
    expect((await w.books.findByIds(ids(0, 1))).map((b) => b.id).sort()).toEqual(ids(0, 1).sort());
  });

  it('lists own and public shelves by name, or only own ones', async () => {
    await w.create.execute(bob, { name: 'Bob public', isPublic: true });
    await w.create.execute(bob, { name: 'Bob private' });
    await w.create.execute(alice, { name: 'alice private' });
    const all = await w.list.execute(alice, { onlyOwn: false, page: 1, pageSize: 20 });
    expect(all.items.map((s) => s.name)).toEqual(['alice private', 'Bob public']);
    const own = await w.list.execute(alice, { onlyOwn: true, page: 1, pageSize: 20 });
    expect(own.items.map((s) => s.name)).toEqual(['alice private']);
  });
});

describe('books on a shelf', () => {
  it('appends at the end and is idempotent', async () => {
    const shelf = await w.create.execute(alice, { name: 'Queue', bookIds: ids(0) });
    expect(await w.addBook.execute(alice, { shelfId: shelf.id, bookId: ids(2)[0] as string })).toEqual({ added: true });
    expect(await w.addBook.execute(alice, { shelfId: shelf.id, bookId: ids(1)[0] as string })).toEqual({ added: true });
    expect(await w.addBook.execute(alice, { shelfId: shelf.id, bookId: ids(0)[0] as string })).toEqual({ added: false });
    expect((await w.shelves.findById(shelf.id))?.bookIds).toEqual(ids(0, 2, 1));
  });

  it('refuses to add a book that does not exist', async () => {
    const shelf = await w.create.execute(alice, { name: 'Queue' });
    expect(await errorOf(w.addBook.execute(alice, { shelfId: shelf.id, bookId: 'ghost' }))).toMatchObject({ kind: 'not_found', code: 'book_not_found' });
  });

  it('removes a book, and answers book_not_on_shelf when it was not there', async () => {
    const shelf = await w.create.execute(alice, { name: 'Queue', bookIds: ids(0, 1) });
    await w.removeBook.execute(alice, { shelfId: shelf.id, bookId: ids(0)[0] as string });
    expect((await w.shelves.findById(shelf.id))?.bookIds).toEqual(ids(1));
    expect(await errorOf(w.removeBook.execute(alice, { shelfId: shelf.id, bookId: ids(0)[0] as string })))
      .toMatchObject({ kind: 'not_found', code: 'book_not_on_shelf' });
    expect((await w.books.findById(ids(0)[0] as string))?.id).toBe(ids(0)[0]);
  });

  it('pages the books in shelf order', async () => {
    const shelf = await w.create.execute(alice, { name: 'Paged', bookIds: ids(3, 1, 0, 2) });
    const second = await w.listBooks.execute(alice, { shelfId: shelf.id, page: 2, pageSize: 3 });
    expect(second).toMatchObject({ total: 4, page: 2, pageSize: 3, totalPages: 2 });
    expect(second.items.map((b) => b.id)).toEqual(ids(2));
    const first = await w.listBooks.execute(alice, { shelfId: shelf.id, page: 1, pageSize: 3 });
    expect(first.items.map((b) => b.id)).toEqual(ids(3, 1, 0));
  });

  it('drops a deleted book from every shelf at once', async () => {
    const a = await w.create.execute(alice, { name: 'A', bookIds: ids(0, 1) });
    const b = await w.create.execute(bob, { name: 'B', isPublic: true, bookIds: ids(1, 2) });
    const gone = ids(1)[0] as string;
    await w.books.delete(gone);
    w.clock.advance(1000);
    await w.shelves.removeBookEverywhere(gone, w.clock.now());
    expect((await w.get.execute(alice, a.id)).bookIds).toEqual(ids(0));
    expect((await w.get.execute(bob, b.id)).bookIds).toEqual(ids(2));
    expect((await w.listBooks.execute(alice, { shelfId: b.id, page: 1, pageSize: 20 })).items.map((x) => x.id)).toEqual(ids(2));
  });
});
