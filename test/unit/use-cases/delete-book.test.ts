import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DeleteBook } from '../../../src/application/use-cases/delete-book.js';
import { GetBookCover } from '../../../src/application/use-cases/get-book-cover.js';
import { GetBookFile } from '../../../src/application/use-cases/get-book-file.js';
import { ReconcileBookStorage } from '../../../src/application/use-cases/reconcile-book-storage.js';
import { RangeNotSatisfiableError } from '../../../src/domain/errors.js';
import { aBook, aShelf } from '../../support/builders.js';
import { aBookWorld, anActor, type BookWorld } from './book-use-cases-support.js';

let w: BookWorld;
beforeEach(async () => {
  w = await aBookWorld();
});
afterEach(() => w.cleanup());

const owner = anActor('user', 'owner-1');
const bytes = Buffer.from('0123456789abcdefghij');

async function storedBook(id: string, withCover = true) {
  const book = aBook({ id, fileSize: bytes.length, coverMediaType: withCover ? 'image/png' : null, owner: { id: 'owner-1', username: 'owner-1' } });
  await w.store.books.create(book);
  await w.blobs.putBytes(`${id}.book`, bytes);
  if (withCover) await w.blobs.putBytes(`${id}.cover`, Buffer.from('png'));
  return book;
}

async function text(body: AsyncIterable<Uint8Array>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString();
}

describe('ReconcileBookStorage', () => {
  it('removes temp files and blobs without a record, and keeps the rest', async () => {
    await storedBook('kept');
    await w.blobs.putBytes('orphan.book', Buffer.from('x'));
    await w.blobs.putBytes('orphan.cover', Buffer.from('x'));
    await w.blobs.putBytes('notes.txt', Buffer.from('not a book key'));
    await w.staging.stage((async function* () { yield Buffer.from('half an upload'); })(), 1000);
    await writeFile(join(w.root, 'tmp', 'crashed.blob'), 'x');

    const report = await new ReconcileBookStorage(w.store.books, w.staging, w.blobs).execute();
    expect(report).toEqual({ tempFilesRemoved: 2, orphanBlobsRemoved: 2, blobsKept: 3 });
    expect(await w.files()).toEqual({ books: ['kept.book', 'kept.cover', 'notes.txt'], tmp: [] });
    expect(await new ReconcileBookStorage(w.store.books, w.staging, w.blobs).execute()).toEqual({ tempFilesRemoved: 0, orphanBlobsRemoved: 0, blobsKept: 3 });
  });
});

describe('DeleteBook', () => {
  it('removes the record, the shelf entries, the file and the cover', async () => {
    await storedBook('gone');
    await storedBook('stays', false);
    const shelf = aShelf({ bookIds: ['stays', 'gone'] });
    await w.store.shelves.create(shelf);
    await new DeleteBook(w.store.books, w.store.shelves, w.blobs, w.clock).execute(owner, 'gone');
    expect((await w.store.books.existingIds(['gone'])).has('gone')).toBe(false);
    expect((await w.store.shelves.findById(shelf.id))?.bookIds).toEqual(['stays']);
    expect(await w.files()).toEqual({ books: ['stays.book'], tmp: [] });
  });

  it('is permission_denied for another user, who can still see the book, and book_not_found for none', async () => {
    await storedBook('theirs');
    const remove = new DeleteBook(w.store.books, w.store.shelves, w.blobs, w.clock);
    await expect(remove.execute(anActor('user', 'someone-else'), 'theirs')).rejects.toMatchObject({ code: 'permission_denied' });
    await expect(remove.execute(owner, 'nothing')).rejects.toMatchObject({ code: 'book_not_found' });
    expect((await w.store.books.existingIds(['theirs'])).has('theirs')).toBe(true);
    await remove.execute(anActor('admin'), 'theirs');
    expect((await w.store.books.existingIds(['theirs'])).has('theirs')).toBe(false);
  });
});

describe('GetBookFile and GetBookCover', () => {
  it('describes the file and reads it whole or one range; a range past the end is not satisfiable', async () => {
    await storedBook('b1');
    const file = await new GetBookFile(w.store.books, w.blobs).execute(anActor('reader'), 'b1');
    expect(file).toMatchObject({ format: 'epub', mediaType: 'application/epub+zip', size: 20, fileName: expect.stringMatching(/\.epub$/) });
    expect(file.etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(await text(await file.open())).toBe('0123456789abcdefghij');
    expect(await text(await file.open({ start: 5, end: 9 }))).toBe('56789');
    await expect(file.open({ start: 5, end: 20 })).rejects.toBeInstanceOf(RangeNotSatisfiableError);
    await expect(file.open({ start: 9, end: 5 })).rejects.toMatchObject({ size: 20 });
  });

  it('gives the cover, or cover_not_found', async () => {
    await storedBook('with');
    await storedBook('without', false);
    const cover = new GetBookCover(w.store.books, w.blobs);
    const got = await cover.execute(anActor('reader'), 'with');
    expect(got.mediaType).toBe('image/png');
    expect(await text(got.body)).toBe('png');
    await expect(cover.execute(anActor('reader'), 'without')).rejects.toMatchObject({ code: 'cover_not_found' });
  });
});
