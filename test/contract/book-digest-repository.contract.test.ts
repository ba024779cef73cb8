import { describe, expect, it } from 'vitest';
import type { KoreaderDigests } from '../../src/domain/koreader-digest.js';
import { aBook, instant } from '../support/builders.js';
import type { StoreFactory } from './stores.js';
import { STORE_FACTORIES, useStore } from './stores.js';

const md5 = (n: number, kind: 'p' | 'f'): string => `${kind === 'p' ? 'a' : 'b'}${String(n).padStart(31, '0')}`;
const digestsOf = (n: number, fileName = n): KoreaderDigests => ({ partialMd5: md5(n, 'p'), fileNameMd5: md5(fileName, 'f') });

function bookDigestRepositoryContract(factory: StoreFactory): void {
  const store = useStore(factory);
  const digests = () => store().digests;

  async function seedBooks(count: number): Promise<void> {
    for (let n = 1; n <= count; n++) {
      await store().books.create(aBook({ id: `b${n}`, sha256: String(n).padStart(64, '0'), createdAt: instant(n) }));
    }
  }

  it('finds a book by either digest, and nothing for an unknown one', async () => {
    await seedBooks(2);
    await digests().put('b1', digestsOf(1));
    await digests().put('b2', digestsOf(2));
    expect(await digests().findBookId(md5(1, 'p'))).toBe('b1');
    expect(await digests().findBookId(md5(2, 'f'))).toBe('b2');
    expect(await digests().findBookId(md5(3, 'p'))).toBeNull();
  });

  it('records several books\' digests at once, replacing earlier ones', async () => {
    await seedBooks(3);
    await digests().put('b2', digestsOf(20));
    await digests().putMany([]);
    await digests().putMany([1, 2, 3].map((n) => ({ bookId: `b${n}`, digests: digestsOf(n) })));
    for (const n of [1, 2, 3]) expect(await digests().findBookId(md5(n, 'p'))).toBe(`b${n}`);
    expect(await digests().findBookId(md5(20, 'p'))).toBeNull();
    expect(await digests().booksWithoutDigests(null, 10)).toEqual([]);
  });

  it('replaces a book\'s digests, so the old ones find nothing', async () => {
    await seedBooks(1);
    await digests().put('b1', digestsOf(1));
    await digests().put('b1', digestsOf(7));
    expect(await digests().findBookId(md5(1, 'p'))).toBeNull();
    expect(await digests().findBookId(md5(1, 'f'))).toBeNull();
    expect(await digests().findBookId(md5(7, 'p'))).toBe('b1');
  });

  it('matches a file-name digest only when one book has it; a partial MD5 wins over a file name', async () => {
    await seedBooks(3);
    await digests().put('b1', digestsOf(1, 9));
    await digests().put('b2', digestsOf(2, 9));
    expect(await digests().findBookId(md5(9, 'f'))).toBeNull();
    await digests().put('b3', { partialMd5: md5(9, 'f'), fileNameMd5: md5(3, 'f') });
    expect(await digests().findBookId(md5(9, 'f'))).toBe('b3');
  });

  it('lists books without digests in id order after a cursor, a page at a time', async () => {
    await seedBooks(7);
    for (const n of [2, 5]) await digests().put(`b${n}`, digestsOf(n));
    expect(await digests().booksWithoutDigests(null, 3)).toEqual(['b1', 'b3', 'b4']);
    expect(await digests().booksWithoutDigests('b4', 3)).toEqual(['b6', 'b7']);
    expect(await digests().booksWithoutDigests('b7', 3)).toEqual([]);
  });

  it('forgets a book\'s digests with the book, or when told', async () => {
    await seedBooks(2);
    await digests().put('b1', digestsOf(1));
    await digests().put('b2', digestsOf(2));
    await store().books.delete('b1');
    await digests().deleteForBook('b1');
    await digests().deleteForBook('b2');
    expect(await digests().findBookId(md5(1, 'p'))).toBeNull();
    expect(await digests().findBookId(md5(2, 'p'))).toBeNull();
    expect(await digests().booksWithoutDigests(null, 10)).toEqual(['b2']);
  });
}

describe.each(STORE_FACTORIES)('BookDigestRepository contract ($name)', (factory) => bookDigestRepositoryContract(factory));
