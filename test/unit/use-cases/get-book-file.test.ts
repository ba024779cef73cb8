import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RangeNotSatisfiableError } from '../../../src/domain/errors.js';
import { aBookWorld, anActor, type BookWorld, errorOf, storeOwnedBook, textOf } from '../../support/kit.js';

let w: BookWorld;
beforeEach(async () => {
  w = await aBookWorld();
});
afterEach(() => w.cleanup());


describe('GetBookFile', () => {
  it('describes the file and reads it whole or one range; a range past the end is not satisfiable', async () => {
    await storeOwnedBook(w, 'b1');
    const file = await w.getBookFile.execute(anActor('reader'), 'b1');
    expect(file).toMatchObject({ format: 'epub', mediaType: 'application/epub+zip', size: 20, fileName: expect.stringMatching(/\.epub$/) });
    expect(file.etag).toMatch(/^"[0-9a-f]{64}"$/);
    expect(await textOf(await file.open())).toBe('0123456789abcdefghij');
    expect(await textOf(await file.open({ start: 5, end: 9 }))).toBe('56789');
    await expect(file.open({ start: 5, end: 20 })).rejects.toBeInstanceOf(RangeNotSatisfiableError);
    await expect(file.open({ start: 9, end: 5 })).rejects.toMatchObject({ size: 20 });
  });

  it('answers book_file_not_found when the record has no file behind it, and book_not_found for an unknown id', async () => {
    await w.storeBook({ id: 'fileless' });
    const file = await w.getBookFile.execute(anActor('reader'), 'fileless');
    expect(await errorOf(file.open())).toMatchObject({ kind: 'not_found', code: 'book_file_not_found' });
    expect(await errorOf(w.getBookFile.execute(anActor('reader'), 'ghost'))).toMatchObject({ kind: 'not_found', code: 'book_not_found' });
  });

  it('is permission_denied without books:read', async () => {
    await storeOwnedBook(w, 'b1');
    expect(await errorOf(w.getBookFile.execute(anActor([]), 'b1'))).toMatchObject({ kind: 'forbidden', code: 'permission_denied' });
  });
});
