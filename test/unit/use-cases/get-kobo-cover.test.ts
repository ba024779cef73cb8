import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CoverResizer, CoverSize } from '../../../src/application/ports.js';
import { GetKoboCover } from '../../../src/application/use-cases/get-kobo-cover.js';
import type { Actor } from '../../../src/domain/actor.js';
import { coverVariantKey } from '../../../src/domain/derived-blobs.js';
import type { User } from '../../../src/domain/user.js';
import { aBookWorld, aKoboSession, errorOf, storeBookWithFiles, type BookWorld } from '../../support/kit.js';

/** A resizer that answers `jpeg <side> q<quality> (grey) of <n> bytes`, remembering each size it was asked for. */
class RecordingResizer implements CoverResizer {
  readonly asked: CoverSize[] = [];

  async resize(image: Uint8Array, size: CoverSize): Promise<Uint8Array> {
    this.asked.push(size);
    await new Promise((resolve) => setImmediate(resolve)); // resizing takes a while: concurrent requests overlap it
    return Buffer.from(`jpeg ${size.maxWidth}x${size.maxHeight} q${size.quality}${size.greyscale ? ' grey' : ''} of ${image.byteLength} bytes`);
  }
}

let w: BookWorld;
let owner: { user: User; actor: Actor };
let resizer: RecordingResizer;
let getCover: GetKoboCover;
beforeEach(async () => {
  w = await aBookWorld();
  owner = await w.storeUser();
  resizer = new RecordingResizer();
  getCover = new GetKoboCover(w.recorded.books, w.recorded.shelves, w.blobs, resizer);
});
afterEach(() => w.cleanup());

const COVER = Buffer.from('a PNG cover');
const request = { width: 300, height: 400, quality: 80, greyscale: false };
const text = (bytes: Uint8Array) => Buffer.from(bytes).toString();

describe('GetKoboCover', () => {
  it('makes the size step the Kobo asks for once (no smaller than asked), kept beside the cover, shared by concurrent requests', async () => {
    const book = await storeBookWithFiles(w, { format: 'epub' }, Buffer.from('epub'), COVER);
    const kobo = await aKoboSession(w, owner);
    const covers = await Promise.all(Array.from({ length: 4 }, () => getCover.execute(kobo, book.id, request)));
    expect(covers.map(text)).toEqual(Array(4).fill('jpeg 512x512 q90 of 11 bytes'));
    expect(resizer.asked).toEqual([{ maxWidth: 512, maxHeight: 512, quality: 90, greyscale: false }]);
    const key = coverVariantKey(book.id, { side: 512, quality: 90, greyscale: false });
    expect(await w.blobs.size(key)).toBe('jpeg 512x512 q90 of 11 bytes'.length);
    expect(text(await getCover.execute(kobo, book.id, { width: 500, height: 510, quality: 90, greyscale: false }))).toBe('jpeg 512x512 q90 of 11 bytes');
    expect(resizer.asked).toHaveLength(1);
    expect(text(await getCover.execute(kobo, book.id, { ...request, greyscale: true }))).toBe('jpeg 512x512 q90 grey of 11 bytes');
    expect(text(await getCover.execute(kobo, book.id, { width: 5000, height: 100, quality: 40, greyscale: false }))).toBe('jpeg 2048x2048 q50 of 11 bytes');
    expect(resizer.asked).toHaveLength(3);
  });

  it('is cover_not_found for a book without a cover, or whose stored cover is gone or past 10 MiB', async () => {
    const kobo = await aKoboSession(w, owner);
    const bare = await storeBookWithFiles(w, { format: 'epub' }, Buffer.from('epub'), null);
    const lost = await w.storeBook({ format: 'epub', coverMediaType: 'image/png' });
    const huge = await storeBookWithFiles(w, { format: 'epub' }, Buffer.from('epub'), Buffer.alloc(10 * 1024 * 1024 + 1));
    for (const book of [bare, lost, huge]) expect(await errorOf(getCover.execute(kobo, book.id, request))).toMatchObject({ kind: 'not_found', code: 'cover_not_found' });
    expect(resizer.asked).toEqual([]);
  });

  it('is book_not_found for a book the device does not get (off its shelves, or of a format it does not read)', async () => {
    const onShelf = await storeBookWithFiles(w, { format: 'epub' }, Buffer.from('epub'), COVER);
    const offShelf = await storeBookWithFiles(w, { format: 'epub' }, Buffer.from('epub'), COVER);
    const mobi = await storeBookWithFiles(w, { format: 'mobi' }, Buffer.from('mobi'), COVER);
    const shelf = await w.createShelf.execute(owner.actor, { name: 'Chosen', bookIds: [onShelf.id, mobi.id] });
    const limited = await aKoboSession(w, owner, [shelf.id]);
    expect(text(await getCover.execute(limited, onShelf.id, request))).toBe('jpeg 512x512 q90 of 11 bytes');
    for (const book of [offShelf, mobi]) expect(await errorOf(getCover.execute(limited, book.id, request))).toMatchObject({ code: 'book_not_found' });
    expect(resizer.asked).toHaveLength(1);
  });
});
