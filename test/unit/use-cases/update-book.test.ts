import { beforeEach, describe, expect, it } from 'vitest';
import type { Book } from '../../../src/domain/book.js';
import { aMember, anAdmin, aReader, aWorld, errorOf, type World } from '../../support/kit.js';

let w: World;
let book: Book;
const owner = aMember('owner-1');
beforeEach(async () => {
  w = aWorld();
  book = await w.storeBook({ title: 'Draft', tags: ['old'], owner: { id: 'owner-1', username: 'owner-1' } });
});

describe('UpdateBook', () => {
  it('lets the uploader change metadata, normalised, and stores it with the update time', async () => {
    w.clock.advance(60_000);
    const updated = await w.updateBook.execute(owner, { id: book.id, changes: { title: '  Final  Title ', tags: ['new'], published: '2019-04' } });
    expect(updated).toEqual({ ...book, title: 'Final Title', tags: ['new'], published: '2019-04', updatedAt: w.clock.now() });
    expect(await w.store.books.findById(book.id)).toEqual(updated);
  });

  it('leaves fields that are not in the patch alone', async () => {
    const updated = await w.updateBook.execute(owner, { id: book.id, changes: { series: 'Cycle' } });
    expect(updated).toMatchObject({ title: 'Draft', tags: ['old'], series: 'Cycle' });
  });

  it("lets an admin change anyone's book", async () => {
    expect((await w.updateBook.execute(anAdmin(), { id: book.id, changes: { title: 'By admin' } })).title).toBe('By admin');
  });

  it('is permission_denied for another user or a reader, and changes nothing', async () => {
    for (const actor of [aMember('someone-else'), aReader()]) {
      expect(await errorOf(w.updateBook.execute(actor, { id: book.id, changes: { title: 'Mine now' } }))).toMatchObject({ kind: 'forbidden', code: 'permission_denied' });
    }
    expect(await w.store.books.findById(book.id)).toEqual(book);
  });

  it('refuses an invalid patch with validation_failed, and an unknown id with book_not_found', async () => {
    expect(await errorOf(w.updateBook.execute(owner, { id: book.id, changes: { published: '2019-02-30' } }))).toMatchObject({ kind: 'validation', code: 'validation_failed' });
    expect(await w.store.books.findById(book.id)).toEqual(book);
    expect(await errorOf(w.updateBook.execute(owner, { id: 'ghost', changes: { title: 'x' } }))).toMatchObject({ kind: 'not_found', code: 'book_not_found' });
  });
});
