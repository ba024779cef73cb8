import { beforeEach, describe, expect, it } from 'vitest';
import { aNobody, aReader, aWorld, errorOf, type World } from '../../support/kit.js';

let w: World;
beforeEach(() => {
  w = aWorld();
});

describe('GetBook', () => {
  it("reads any book's record for an actor with books:read", async () => {
    const book = await w.storeBook({ title: 'Dune', owner: { id: 'someone-else', username: 'someone-else' } });
    expect(await w.getBook.execute(aReader(), book.id)).toEqual(book);
  });

  it('answers book_not_found for an unknown id', async () => {
    expect(await errorOf(w.getBook.execute(aReader(), 'ghost'))).toMatchObject({ kind: 'not_found', code: 'book_not_found' });
  });

  it('is permission_denied without books:read, before looking the book up', async () => {
    const book = await w.storeBook();
    expect(await errorOf(w.getBook.execute(aNobody(), book.id))).toMatchObject({ kind: 'forbidden', code: 'permission_denied' });
    expect(await errorOf(w.getBook.execute(aNobody(), 'ghost'))).toMatchObject({ kind: 'forbidden', code: 'permission_denied' });
  });
});
