import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aBookWorld, anActor, aShelf, BOOK_OWNER, type BookWorld, storeOwnedBook } from '../../support/kit.js';

let w: BookWorld;
beforeEach(async () => {
  w = await aBookWorld();
});
afterEach(() => w.cleanup());


describe('DeleteBook', () => {
  it('removes the record, the shelf entries, the file and the cover', async () => {
    await storeOwnedBook(w, 'gone');
    await storeOwnedBook(w, 'stays', false);
    const shelf = aShelf({ bookIds: ['stays', 'gone'] });
    await w.store.shelves.create(shelf);
    await w.deleteBook.execute(BOOK_OWNER, 'gone');
    expect((await w.store.books.existingIds(['gone'])).has('gone')).toBe(false);
    expect((await w.store.shelves.findById(shelf.id))?.bookIds).toEqual(['stays']);
    expect(await w.files()).toEqual({ books: ['stays.book'], tmp: [] });
  });

  it('removes every reader\'s progress of the book and keeps that of other books', async () => {
    await storeOwnedBook(w, 'gone');
    await storeOwnedBook(w, 'stays', false);
    for (const reader of [BOOK_OWNER, anActor('user', 'reader-2')]) {
      for (const bookId of ['gone', 'stays']) await w.updateProgress.execute(reader, { bookId, update: { percentage: 0.5 } });
    }
    await w.deleteBook.execute(BOOK_OWNER, 'gone');
    expect(await w.store.progress.get(BOOK_OWNER.id, 'gone')).toBeNull();
    expect(await w.store.progress.get('reader-2', 'gone')).toBeNull();
    expect(await w.store.progress.get('reader-2', 'stays')).toMatchObject({ percentage: 0.5 });
  });

  it('is permission_denied for another user, who can still see the book, and book_not_found for none', async () => {
    await storeOwnedBook(w, 'theirs');
    const remove = w.deleteBook;
    await expect(remove.execute(anActor('user', 'someone-else'), 'theirs')).rejects.toMatchObject({ code: 'permission_denied' });
    await expect(remove.execute(BOOK_OWNER, 'nothing')).rejects.toMatchObject({ code: 'book_not_found' });
    expect((await w.store.books.existingIds(['theirs'])).has('theirs')).toBe(true);
    await remove.execute(anActor('admin'), 'theirs');
    expect((await w.store.books.existingIds(['theirs'])).has('theirs')).toBe(false);
  });
});
