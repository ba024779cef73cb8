import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { InMemoryBookDigestRepository } from '../../../src/adapters/memory/in-memory-book-digest-repository.js';
import { SafeMetadataReader } from '../../../src/adapters/metadata/safe-metadata-reader.js';
import type { BookDigestRepository, ExtractedBook, MetadataReader, StagedFile } from '../../../src/application/ports.js';
import { UploadBook } from '../../../src/application/use-cases/upload-book.js';
import { buildEpub, buildPdf } from '../../support/fixtures/index.js';
import { aBook, aBookWorld, anActor, sourceOf, type BookWorld } from '../../support/kit.js';
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
const uploadWith = (digests: BookDigestRepository = w.store.digests, metadata: MetadataReader = reader) =>
  new UploadBook(w.store.books, w.staging, w.blobs, metadata, w.clock, w.ids, 1024 * 1024, digests, w.secrets);

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
    await expect(uploadWith(w.store.digests, racing).execute(alice, sourceOf(epub, 'r.epub'))).rejects.toMatchObject({ code: 'duplicate_book' });
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
    const book = await uploadWith(new DigestStoreDown()).execute(alice, sourceOf(pdf, 'kept.pdf'));
    expect(await w.store.books.findById(book.id)).toEqual(book);
    expect(await w.files()).toEqual({ books: [`${book.id}.book`], tmp: [] });
    expect(await w.store.digests.booksWithoutDigests(null, 10)).toEqual([book.id]);
  });
});
