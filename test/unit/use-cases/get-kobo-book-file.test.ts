import { readFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KepubConverter, StagedFile } from '../../../src/application/ports.js';
import type { KoboSession } from '../../../src/application/use-cases/authenticate-kobo-device.js';
import { GetKoboBookFile } from '../../../src/application/use-cases/get-kobo-book-file.js';
import type { Actor } from '../../../src/domain/actor.js';
import { bookFileKey } from '../../../src/domain/book.js';
import { kepubKey } from '../../../src/domain/derived-blobs.js';
import { UnprocessableError } from '../../../src/domain/errors.js';
import type { User } from '../../../src/domain/user.js';
import { aBookWorld, aKoboSession, errorOf, storeBookWithFiles, textOf, type BookWorld } from '../../support/kit.js';

/** A converter that writes `KEPUB of <the EPUB's bytes>`, counting its conversions; `failWith` makes each one throw. */
class CountingConverter implements KepubConverter {
  readonly version = 3;
  conversions = 0;
  failWith: Error | null = null;

  constructor(private readonly w: BookWorld) {}

  async convert(source: StagedFile): Promise<StagedFile> {
    this.conversions += 1;
    await new Promise((resolve) => setImmediate(resolve)); // a conversion takes a while: concurrent requests overlap it
    if (this.failWith) throw this.failWith;
    const epub = await readFile(source.handle);
    return this.w.staging.stage(Readable.from([Buffer.concat([Buffer.from('KEPUB of '), epub])]), 1024 * 1024);
  }
}

let w: BookWorld;
let owner: { user: User; actor: Actor };
let converter: CountingConverter;
let getFile: GetKoboBookFile;
let warnings: object[];
beforeEach(async () => {
  w = await aBookWorld();
  owner = await w.storeUser();
  converter = new CountingConverter(w);
  warnings = [];
  getFile = new GetKoboBookFile(w.recorded.books, w.recorded.shelves, w.blobs, w.staging, converter,
    { info: () => undefined, warn: (details) => warnings.push(details) });
});
afterEach(() => w.cleanup());

const EPUB = Buffer.from('the EPUB itself');
const storeEpub = () => storeBookWithFiles(w, { format: 'epub', fileName: 'dune.epub', fileSize: EPUB.length }, EPUB);
const bodyOf = async (session: KoboSession, bookId: string) => textOf(await (await getFile.execute(session, bookId)).open());

describe('GetKoboBookFile', () => {
  it('serves a PDF as it is', async () => {
    const pdf = await storeBookWithFiles(w, { format: 'pdf', fileName: 'paper.pdf' }, Buffer.from('%PDF-1.7 paper'));
    const file = await getFile.execute(await aKoboSession(w, owner), pdf.id);
    expect(file).toMatchObject({ kind: 'pdf', mediaType: 'application/pdf', fileName: 'paper.pdf', size: pdf.fileSize, etag: `"${pdf.sha256}"` });
    expect(await textOf(await file.open())).toBe('%PDF-1.7 paper');
    expect(converter.conversions).toBe(0);
  });

  it('converts an EPUB to KEPUB once, kept beside the book (never replacing it), shared by concurrent requests', async () => {
    const book = await storeEpub();
    const kobo = await aKoboSession(w, owner);
    const files = await Promise.all(Array.from({ length: 5 }, () => getFile.execute(kobo, book.id)));
    expect(converter.conversions).toBe(1);
    const kepub = 'KEPUB of the EPUB itself';
    for (const file of files) {
      expect(file).toMatchObject({ kind: 'kepub', mediaType: 'application/epub+zip', fileName: 'dune.kepub.epub', size: kepub.length, etag: `"${book.sha256}-kepub3"` });
    }
    expect(await bodyOf(kobo, book.id)).toBe(kepub);
    expect(converter.conversions).toBe(1);
    expect(await w.blobs.size(kepubKey(book.id, book.sha256, 3))).toBe(kepub.length);
    expect(await textOf((await w.blobs.read(bookFileKey(book.id)))!)).toBe('the EPUB itself');
    expect((await w.files()).tmp).toEqual([]);
  });

  it('serves the EPUB as it is when the conversion is refused, and does not try that file again', async () => {
    const book = await storeEpub();
    const kobo = await aKoboSession(w, owner);
    converter.failWith = new UnprocessableError('corrupt_book_file', 'malformed');
    expect(await getFile.execute(kobo, book.id)).toMatchObject({ kind: 'epub', fileName: 'dune.epub', size: EPUB.length, etag: `"${book.sha256}"` });
    expect(await bodyOf(kobo, book.id)).toBe('the EPUB itself');
    expect(converter.conversions).toBe(1);
    expect(warnings).toEqual([{ book_id: book.id, code: 'corrupt_book_file' }]);
    expect((await w.files()).tmp).toEqual([]);
  });

  it('tries again after a failure that is not the file\'s fault', async () => {
    const book = await storeEpub();
    const kobo = await aKoboSession(w, owner);
    converter.failWith = new Error('disk full');
    expect((await getFile.execute(kobo, book.id)).kind).toBe('epub');
    converter.failWith = null;
    expect((await getFile.execute(kobo, book.id)).kind).toBe('kepub');
    expect(converter.conversions).toBe(2);
  });

  it('is book_not_found for a book the device does not get, and book_file_not_found for a record whose file is gone', async () => {
    const book = await storeEpub();
    const shelf = await w.createShelf.execute(owner.actor, { name: 'Empty' });
    expect(await errorOf(getFile.execute(await aKoboSession(w, owner, [shelf.id]), book.id))).toMatchObject({ code: 'book_not_found' });
    const lost = await w.storeBook({ format: 'pdf' });
    expect(await errorOf(bodyOf(await aKoboSession(w, owner), lost.id))).toMatchObject({ code: 'book_file_not_found' });
    expect(converter.conversions).toBe(0);
  });
});
