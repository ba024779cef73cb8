import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FsBlobStore } from '../../../src/adapters/files/fs-blob-store.js';
import { InMemoryBookDigestRepository } from '../../../src/adapters/memory/in-memory-book-digest-repository.js';
import { SafeMetadataReader } from '../../../src/adapters/metadata/safe-metadata-reader.js';
import type { BookDigestRepository, ExtractedBook, MetadataReader, StagedFile } from '../../../src/application/ports.js';
import { UploadBook } from '../../../src/application/use-cases/upload-book.js';
import { buildEpub, buildPdf, seededBytes } from '../../support/fixtures/index.js';
import { aBook, aBookWorld, anActor, errorOf, sourceOf, type BookWorld } from '../../support/kit.js';
import { md5Of, readingBuffer, referencePartialMd5, referencePartialMd5OfFile } from '../../support/koreader-reference.js';

let reader: SafeMetadataReader;
let w: BookWorld;
beforeAll(() => {
  reader = new SafeMetadataReader({ timeBudgetMs: 10_000 });
});
afterAll(() => reader.close());
beforeEach(async () => {
  w = await aBookWorld();
});
afterEach(() => w.cleanup());

const alice = anActor('user', 'alice');
const uploadWith = (metadata: MetadataReader = reader, blobs = w.blobs, max = 1024 * 1024, digests: BookDigestRepository = w.store.digests) =>
  new UploadBook(w.store.books, w.staging, blobs, metadata, w.clock, w.ids, max, digests, w.secrets, w.authority);

describe('UploadBook', () => {
  it('stores the file, the cover and the record, with overrides over file metadata', async () => {
    const epub = await buildEpub();
    const book = await uploadWith().execute(alice, sourceOf(epub, 'left.epub', { title: 'Override' }));
    expect(book).toMatchObject({
      id: 'book-1', title: 'Override', authors: ['Ursula K. Le Guin', 'Second & Author'], format: 'epub', fileName: 'left.epub',
      fileSize: epub.length, coverMediaType: 'image/png', owner: { id: 'alice', username: 'alice' }, createdAt: w.clock.now(),
    });
    expect(await w.store.books.findById('book-1')).toEqual(book);
    expect(await w.files()).toEqual({ books: ['book-1.book', 'book-1.cover'], tmp: [] });
    expect((await readFile(join(w.root, 'books', 'book-1.book'))).equals(epub)).toBe(true);
  });

  it('refuses a reader before reading a byte', async () => {
    const source = sourceOf(buildPdf());
    await expect(uploadWith().execute(anActor('reader'), source)).rejects.toMatchObject({ code: 'permission_denied' });
    expect(source.read).toBe(false);
  });

  it('answers a known SHA-256 with duplicate_book and the existing id, before parsing', async () => {
    const pdf = buildPdf({ info: { Title: 'Once' } });
    const first = await uploadWith().execute(alice, sourceOf(pdf, 'a.pdf'));
    const never: MetadataReader = { read: () => Promise.reject(new Error('must not parse a duplicate')) };
    await expect(uploadWith(never).execute(alice, sourceOf(pdf, 'b.pdf'))).rejects.toMatchObject({ code: 'duplicate_book', extra: { book_id: first.id } });
    expect(await w.files()).toEqual({ books: [`${first.id}.book`], tmp: [] });
  });

  it('answers a duplicate held while its uploader lost authority as if it came after the change, naming no book', async () => {
    const pdf = buildPdf({ info: { Title: 'Held twice' } });
    await uploadWith().execute(alice, sourceOf(pdf, 'a.pdf'));
    const { user: off, actor: offActor } = await w.storeUser({ username: 'off', email: 'off@example.test', roles: ['user'] });
    const { user: shrunk, actor: shrunkActor } = await w.storeUser({ username: 'shrunk', email: 'shrunk@example.test', roles: ['user'] });
    // Authenticated before the change, its body arriving after it.
    await w.store.users.updateAccess(off.id, { disabled: true }, w.clock.now());
    await w.store.users.updateAccess(shrunk.id, { roles: ['reader'] }, w.clock.now());
    const disabled = await errorOf(uploadWith().execute(offActor, sourceOf(pdf, 'b.pdf')));
    const demoted = await errorOf(uploadWith().execute(shrunkActor, sourceOf(pdf, 'c.pdf')));
    expect([disabled.code, demoted.code]).toEqual(['invalid_token', 'permission_denied']);
    expect(await w.files()).toEqual({ books: ['book-1.book'], tmp: [] });
  });

  it('removes the staged file and both blobs when a concurrent upload of the same file wins the insert', async () => {
    const epub = await buildEpub({ title: 'Raced' });
    const racing: MetadataReader = {
      async read(file: StagedFile): Promise<ExtractedBook> {
        await w.store.books.create(aBook({ id: 'winner', sha256: file.sha256 }));
        return reader.read(file);
      },
    };
    await expect(uploadWith(racing).execute(alice, sourceOf(epub, 'r.epub'))).rejects.toMatchObject({ code: 'duplicate_book', extra: { book_id: 'winner' } });
    expect(await w.files()).toEqual({ books: [], tmp: [] });
  });

  it('deletes the book file already written when the cover cannot be written', async () => {
    class CoverFails extends FsBlobStore {
      override async putBytes(): Promise<void> {
        throw new Error('disk full');
      }
    }
    await expect(uploadWith(reader, new CoverFails(w.root)).execute(alice, sourceOf(await buildEpub({ title: 'No room' })))).rejects.toThrow('disk full');
    expect(await w.files()).toEqual({ books: [], tmp: [] });
  });

  it('leaves nothing for an unsupported file, an invalid override, a failed request or a file past the limit', async () => {
    await expect(uploadWith().execute(alice, sourceOf(seededBytes(1, 4096), 'x.epub'))).rejects.toMatchObject({ kind: 'unsupported' });
    await expect(uploadWith().execute(alice, sourceOf(buildPdf(), 'x.pdf', { published: '2019-02-30' }))).rejects.toMatchObject({ kind: 'validation' });
    const broken = { ...sourceOf(buildPdf(), 'y.pdf'), details: () => Promise.reject(new Error('second file')) };
    await expect(uploadWith().execute(alice, broken)).rejects.toThrow('second file');
    await expect(uploadWith(reader, w.blobs, 1000).execute(alice, sourceOf(seededBytes(2, 1001)))).rejects.toMatchObject({ code: 'payload_too_large' });
    expect(await w.files()).toEqual({ books: [], tmp: [] });
    expect((await w.store.books.search({ sort: { field: 'added', descending: true }, page: 1, pageSize: 10 })).total).toBe(0);
  });
});

describe('UploadBook and KOReader digests', () => {
  it('records the partial MD5 of the stored file and the MD5 of the name it is served under', async () => {
    const epub = await buildEpub({ title: 'Digested' });
    const book = await uploadWith().execute(alice, sourceOf(epub, 'dir/Digested.epub'));
    expect(book.fileName).toBe('Digested.epub');
    expect(referencePartialMd5OfFile(join(w.root, 'books', `${book.id}.book`))).toBe(referencePartialMd5(readingBuffer(epub)));
    expect(await w.store.digests.findBookId(referencePartialMd5(readingBuffer(epub)))).toBe(book.id);
    expect(await w.store.digests.findBookId(md5Of('Digested.epub'))).toBe(book.id);
    expect(await w.store.digests.booksWithoutDigests(null, 10)).toEqual([]);
  });

  it('hashes the title-made name when the client sent none, a name a later title edit does not change', async () => {
    const pdf = buildPdf({ info: { Title: 'No Name Given' } });
    const book = await uploadWith().execute(alice, sourceOf(pdf, null));
    expect(book.fileName).toBe('No Name Given.pdf');
    const edited = await w.updateBook.execute(alice, { id: book.id, changes: { title: 'Renamed' } });
    expect(edited.fileName).toBe('No Name Given.pdf');
    expect(await w.store.digests.findBookId(md5Of('No Name Given.pdf'))).toBe(book.id);
  });

  it('records no digests for an upload that fails', async () => {
    const epub = await buildEpub({ title: 'Raced' });
    const racing: MetadataReader = {
      async read(file: StagedFile): Promise<ExtractedBook> {
        await w.store.books.create(aBook({ id: 'winner', sha256: file.sha256 }));
        return reader.read(file);
      },
    };
    await expect(uploadWith(racing).execute(alice, sourceOf(epub, 'r.epub'))).rejects.toMatchObject({ code: 'duplicate_book' });
    expect(await w.store.digests.findBookId(referencePartialMd5(readingBuffer(epub)))).toBeNull();
    expect(await w.store.digests.findBookId(md5Of('r.epub'))).toBeNull();
  });

  it('keeps the book when its digests cannot be stored, leaving it to the backfill', async () => {
    class DigestStoreDown extends InMemoryBookDigestRepository {
      override async put(): Promise<void> {
        throw new Error('digest store down');
      }
    }
    const pdf = buildPdf({ info: { Title: 'Kept' } });
    const book = await uploadWith(reader, w.blobs, 1024 * 1024, new DigestStoreDown()).execute(alice, sourceOf(pdf, 'kept.pdf'));
    expect(await w.store.books.findById(book.id)).toEqual(book);
    expect(await w.files()).toEqual({ books: [`${book.id}.book`], tmp: [] });
    expect(await w.store.digests.booksWithoutDigests(null, 10)).toEqual([book.id]);
  });
});
