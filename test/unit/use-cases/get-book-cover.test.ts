import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { aBookWorld, anActor, type BookWorld, errorOf, storeOwnedBook, textOf } from '../../support/kit.js';

let w: BookWorld;
beforeEach(async () => {
  w = await aBookWorld();
});
afterEach(() => w.cleanup());


describe('GetBookCover', () => {
  it('gives the cover, or cover_not_found', async () => {
    await storeOwnedBook(w, 'with');
    await storeOwnedBook(w, 'without', false);
    const cover = w.getBookCover;
    const got = await cover.execute(anActor('reader'), 'with');
    expect(got.mediaType).toBe('image/png');
    expect(await textOf(got.body)).toBe('png');
    await expect(cover.execute(anActor('reader'), 'without')).rejects.toMatchObject({ code: 'cover_not_found' });
  });

  it('answers cover_not_found when the record names a cover that is not stored, and book_not_found for an unknown id', async () => {
    await w.storeBook({ id: 'lost-cover', coverMediaType: 'image/png' });
    expect(await errorOf(w.getBookCover.execute(anActor('reader'), 'lost-cover'))).toMatchObject({ kind: 'not_found', code: 'cover_not_found' });
    expect(await errorOf(w.getBookCover.execute(anActor('reader'), 'ghost'))).toMatchObject({ kind: 'not_found', code: 'book_not_found' });
  });
});
