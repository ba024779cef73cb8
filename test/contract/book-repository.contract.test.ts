import { beforeEach, describe, expect, it } from 'vitest';
import type { Book, BookQuery, BookSortField } from '../../src/domain/book.js';
import { ConflictError } from '../../src/domain/errors.js';
import { aBook, instant } from '../support/builders.js';
import type { StoreFactory } from './stores.js';
import { itWhere, STORE_FACTORIES, useStore } from './stores.js';

const LIBRARY: readonly Book[] = [
  aBook({ id: 'b1', title: 'The Left Hand of Darkness', authors: ['Ursula K. Le Guin'], tags: ['Science Fiction', 'Classic'],
    series: 'Hainish Cycle', published: '1969', format: 'epub', createdAt: instant(1) }),
  aBook({ id: 'b2', title: 'a Wizard of Earthsea', authors: ['Ursula K. Le Guin'], tags: ['Fantasy'], series: 'Earthsea',
    published: '1968-11', format: 'pdf', createdAt: instant(2) }),
  aBook({ id: 'b3', title: 'Dune', authors: ['Frank Herbert'], tags: ['science fiction'], series: 'Dune Chronicles',
    published: null, format: 'epub', createdAt: instant(3) }),
  aBook({ id: 'b4', title: '100% Cotton_Story', authors: [], tags: ['Odd\\Path'], series: null,
    published: '2001-05-03', format: 'txt', createdAt: instant(4) }),
  aBook({ id: 'b5', title: 'Zen and the Art of Motorcycle Maintenance', authors: ['Robert Pirsig', 'Frank Herbert'], tags: [],
    series: null, published: '1974', format: 'mobi', createdAt: instant(5) }),
];

function bookRepositoryContract(factory: StoreFactory): void {
  const store = useStore(factory);
  const books = () => store().books;
  const search = (query: Partial<BookQuery> = {}) =>
    books().search({ sort: { field: 'title', descending: false }, page: 1, pageSize: 100, ...query });
  const ids = async (query: Partial<BookQuery> = {}) => (await search(query)).items.map((b) => b.id);

  describe('records', () => {
    it('creates a book and finds it by id, SHA-256 and in a list of ids', async () => {
      const book = aBook({ tags: ['a', 'b'], seriesIndex: 2.5, coverMediaType: 'image/png', published: '2019-04' });
      const other = aBook();
      await books().create(book);
      await books().create(other);
      expect(await books().findById(book.id)).toEqual(book);
      expect(await books().findBySha256(book.sha256)).toEqual(book);
      expect((await books().existingIds([book.id])).has(book.id)).toBe(true);
      const found = await books().findByIds([other.id, 'missing', book.id, book.id]);
      expect(found.sort((a, b) => a.id.localeCompare(b.id))).toEqual([book, other].sort((a, b) => a.id.localeCompare(b.id)));
    });

    it('tells which of a list of ids are stored books, ignoring repeats and absent ids', async () => {
      const book = aBook();
      const other = aBook();
      await books().create(book);
      await books().create(other);
      expect([...(await books().existingIds([book.id, 'missing', book.id]))]).toEqual([book.id]);
      expect([...(await books().existingIds([other.id, book.id]))].sort()).toEqual([book.id, other.id].sort());
      expect((await books().existingIds([])).size).toBe(0);
      expect((await books().existingIds(['missing'])).size).toBe(0);
    });

    it('returns null, false or nothing for absent books', async () => {
      await books().create(aBook());
      expect(await books().findById('missing')).toBeNull();
      expect(await books().findBySha256('f'.repeat(64))).toBeNull();
      expect((await books().existingIds(['missing'])).has('missing')).toBe(false);
      expect(await books().findByIds([])).toEqual([]);
      expect(await books().findByIds(['missing'])).toEqual([]);
      expect(await books().delete('missing')).toBe(false);
    });

    itWhere(factory, 'uniqueIndexes')('rejects a second book with the same SHA-256, naming the existing one', async () => {
      const first = aBook();
      await books().create(first);
      const error = await books().create(aBook({ sha256: first.sha256 })).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConflictError);
      expect(error).toMatchObject({ code: 'duplicate_book', extra: { book_id: first.id } });
      expect((await search()).total).toBe(1);
    });

    it('applies a metadata patch and updatedAt, leaving every other field alone', async () => {
      const book = aBook({ description: 'kept', tags: ['kept'] });
      await books().create(book);
      const patch = { title: 'New', authors: ['X', 'Y'], publisher: 'p', language: 'fr', published: '2020', isbn: '9780000000000',
        series: 's', seriesIndex: 1 };
      const updated = await books().updateMetadata(book.id, patch, instant(500));
      expect(updated).toEqual({ ...book, ...patch, updatedAt: instant(500) });
      expect(await books().findById(book.id)).toEqual(updated);
      expect(await books().updateMetadata(book.id, { description: null, tags: [] }, instant(501)))
        .toEqual({ ...updated, description: null, tags: [], updatedAt: instant(501) });
    });

    it('does not create a book when patching an unknown id', async () => {
      expect(await books().updateMetadata('ghost', { title: 'Boo' }, instant(500))).toBeNull();
      expect((await books().existingIds(['ghost'])).has('ghost')).toBe(false);
    });

    it('keeps an edit that lands between another writer\'s read and its write', async () => {
      const book = aBook({ title: 'Before', description: null });
      await books().create(book);
      const read = await books().findById(book.id);
      await books().updateMetadata(book.id, { description: 'written in between' }, instant(510));
      await books().updateMetadata(book.id, { title: 'After' }, instant(511));
      expect(await books().findById(book.id)).toEqual({ ...read, title: 'After', description: 'written in between', updatedAt: instant(511) });
      expect(await ids({ q: 'after' })).toEqual([book.id]);
    });

    it('keeps both of two edits sent at once, for each of 20 books', async () => {
      const twenty = Array.from({ length: 20 }, () => aBook({ title: 'Same', description: null }));
      for (const book of twenty) await books().create(book);
      await Promise.all(twenty.flatMap((book, i) => [
        books().updateMetadata(book.id, { title: `Title ${i}` }, instant(520)),
        books().updateMetadata(book.id, { description: `Description ${i}` }, instant(520)),
      ]));
      const stored = await books().findByIds(twenty.map((b) => b.id));
      for (const [i, book] of twenty.entries()) {
        expect(stored.find((b) => b.id === book.id)).toMatchObject({ title: `Title ${i}`, description: `Description ${i}` });
      }
    });

    it('deletes a book, which then no longer turns up anywhere', async () => {
      const book = aBook({ title: 'Vanishing Act', tags: ['gone'] });
      await books().create(book);
      expect(await books().delete(book.id)).toBe(true);
      expect(await books().findById(book.id)).toBeNull();
      expect(await ids({ q: 'vanishing' })).toEqual([]);
      expect(await ids({ tag: 'gone' })).toEqual([]);
      await books().create(aBook({ sha256: book.sha256 }));
    });

    it('hands out copies: changing a given or returned book does not change the store', async () => {
      const book = aBook({ authors: ['Original'] });
      await books().create(book);
      (book.authors as string[]).push('Added later');
      const found = (await books().findById(book.id)) as Book;
      (found.authors as string[]).push('Added later');
      (found.owner as { username: string }).username = 'mallory';
      found.createdAt.setTime(0);
      const [listed] = (await search()).items;
      (listed?.tags as string[]).push('x');
      const again = await books().findById(book.id);
      expect(again).toMatchObject({ authors: ['Original'], owner: { username: 'owner1' }, tags: [] });
      expect(again?.createdAt.getTime()).not.toBe(0);
    });
  });

  describe('search', () => {
    beforeEach(async () => {
      for (const book of LIBRARY) await books().create(book);
    });

    it('matches q case-insensitively in the title, authors, tags and series', async () => {
      expect(await ids({ q: 'DARKNESS' })).toEqual(['b1']);
      expect(await ids({ q: 'le guin' })).toEqual(['b2', 'b1']);
      expect(await ids({ q: 'pirsig' })).toEqual(['b5']);
      expect(await ids({ q: 'herbert' })).toEqual(['b3', 'b5']);
      expect(await ids({ q: 'FANTASY' })).toEqual(['b2']);
      expect(await ids({ q: 'chronicles' })).toEqual(['b3']);
      expect(await ids({ q: 'hainish' })).toEqual(['b1']);
    });

    it('matches q of one or two characters in any letter case inside one field, a whole short field too, never across two', async () => {
      expect(await ids({ q: 'du' })).toEqual(['b3']);
      expect(await ids({ q: 'Z' })).toEqual(['b2', 'b5']);
      await books().create(aBook({ id: 'b6', title: 'Élan 😀', authors: ['Xi'], tags: ['SF'], series: null }));
      expect(await ids({ q: 'K' })).toEqual(['b2', 'b3', 'b1', 'b5']);
      expect(await ids({ q: 'XI' })).toEqual(['b6']);
      expect(await ids({ q: 'x' })).toEqual(['b6']);
      expect(await ids({ q: 'sF' })).toEqual(['b6']);
      expect(await ids({ q: 'É' })).toEqual(['b6']);
      expect(await ids({ q: 'éL' })).toEqual(['b6']);
      expect(await ids({ q: '😀' })).toEqual(['b6']);
      expect(await ids({ q: 'n 😀' })).toEqual(['b6']);
      expect(await ids({ q: 'ts' })).toEqual([]);
      expect(await ids({ q: 'ix' })).toEqual([]);
    });

    it('takes %, _ and \\ in q literally', async () => {
      expect(await ids({ q: '%' })).toEqual(['b4']);
      expect(await ids({ q: '0% c' })).toEqual(['b4']);
      expect(await ids({ q: '_' })).toEqual(['b4']);
      expect(await ids({ q: 'i_h' })).toEqual([]);
      expect(await ids({ q: 'h%d' })).toEqual([]);
      expect(await ids({ q: '\\' })).toEqual(['b4']);
      expect(await ids({ q: 'odd\\path' })).toEqual(['b4']);
      expect(await ids({ q: '"' })).toEqual([]);
    });

    it('takes FTS and regular-expression syntax, quotes and control characters in q literally, never failing', async () => {
      await books().create(aBook({ id: 'b6', title: 'Say "NEAR" (to* ^me:) OR -you {a|b} $1.', tags: ['ab\u0000cd', 'tab\there'] }));
      for (const q of ['"near"', '(to*', 'to* ^me:)', 'or -you', '{a|b} $1.', '"', '" (to', 'ab\u0000cd', '\u0000', 'tab\th', 'b\u0000c'])
        expect(await ids({ q }), JSON.stringify(q)).toEqual(['b6']);
      for (const q of ['NEAR(a b)', 'say*', '(say', 'say)', '"say', 'dune OR darkness', 'dune AND', 'ab\u0000ce', '\u0001', 'x\u0000', '[', '\\1'])
        expect(await ids({ q }), JSON.stringify(q)).toEqual([]);
    });

    it('does not match q across two fields', async () => {
      expect(await ids({ q: 'dune frank' })).toEqual([]);
      expect(await ids({ q: 'dunefrank' })).toEqual([]);
    });

    it('matches non-ASCII letters case-insensitively', async () => {
      await books().create(aBook({ id: 'b6', title: 'Élan Vital' }));
      expect(await ids({ q: 'élan' })).toEqual(['b6']);
      expect(await ids({ q: 'ÉLAN V' })).toEqual(['b6']);
    });

    it('filters by one author, whole name, any position, any letter case', async () => {
      expect(await ids({ author: 'URSULA K. LE GUIN' })).toEqual(['b2', 'b1']);
      expect(await ids({ author: 'frank herbert' })).toEqual(['b3', 'b5']);
      expect(await ids({ author: 'Le Guin' })).toEqual([]);
    });

    it('filters by one exact tag in any letter case', async () => {
      expect(await ids({ tag: 'SCIENCE FICTION' })).toEqual(['b3', 'b1']);
      expect(await ids({ tag: 'science' })).toEqual([]);
      expect(await ids({ tag: 'odd\\path' })).toEqual(['b4']);
    });

    it('filters by format and combines every filter', async () => {
      expect(await ids({ format: 'epub' })).toEqual(['b3', 'b1']);
      expect(await ids({ format: 'azw3' })).toEqual([]);
      expect(await ids({ q: 'herbert', format: 'mobi' })).toEqual(['b5']);
      expect(await ids({ q: 'ursula', author: 'ursula k. le guin', tag: 'classic', format: 'epub' })).toEqual(['b1']);
      expect(await ids({ q: 'ursula', tag: 'classic', format: 'pdf' })).toEqual([]);
    });

    it('returns an empty page and a zero total when nothing matches', async () => {
      expect(await search({ q: 'no such book' })).toEqual({ items: [], total: 0 });
    });

    const sorted: Record<BookSortField, [string[], string[]]> = {
      title: [['b4', 'b2', 'b3', 'b1', 'b5'], ['b5', 'b1', 'b3', 'b2', 'b4']],
      author: [['b3', 'b5', 'b1', 'b2', 'b4'], ['b2', 'b1', 'b5', 'b3', 'b4']],
      added: [['b1', 'b2', 'b3', 'b4', 'b5'], ['b5', 'b4', 'b3', 'b2', 'b1']],
      published: [['b2', 'b1', 'b5', 'b4', 'b3'], ['b4', 'b5', 'b1', 'b2', 'b3']],
      // Nothing read (no reader): by id; the reader's order is in the progress contract.
      read: [['b1', 'b2', 'b3', 'b4', 'b5'], ['b5', 'b4', 'b3', 'b2', 'b1']],
    };
    for (const [field, [ascending, descending]] of Object.entries(sorted) as [BookSortField, [string[], string[]]][]) {
      it(`sorts by ${field} both ways (missing values last, ties by id)`, async () => {
        expect(await ids({ sort: { field, descending: false } })).toEqual(ascending);
        expect(await ids({ sort: { field, descending: true } })).toEqual(descending);
      });
    }

    it('sorts titles case-insensitively and breaks ties by id', async () => {
      await books().create(aBook({ id: 'z-same', title: 'same' }));
      await books().create(aBook({ id: 'a-same', title: 'SAME' }));
      const titles = await ids({ q: 'same' });
      expect(titles).toEqual(['a-same', 'z-same']);
      expect(await ids({ q: 'same', sort: { field: 'title', descending: true } })).toEqual(['z-same', 'a-same']);
    });

    it('pages through the results with the total on every page', async () => {
      const sort = { field: 'added' as const, descending: false };
      const page = async (n: number) => {
        const slice = await search({ sort, page: n, pageSize: 2 });
        return { ids: slice.items.map((b) => b.id), total: slice.total };
      };
      expect(await page(1)).toEqual({ ids: ['b1', 'b2'], total: 5 });
      expect(await page(2)).toEqual({ ids: ['b3', 'b4'], total: 5 });
      expect(await page(3)).toEqual({ ids: ['b5'], total: 5 });
      expect(await page(4)).toEqual({ ids: [], total: 5 });
      expect((await search({ tag: 'science fiction', page: 2, pageSize: 1 })).total).toBe(2);
    });

    it('reads every page, deep ones from the far end included, in the order of one whole page, for every order and filter', async () => {
      for (const field of Object.keys(sorted) as BookSortField[]) {
        for (const descending of [false, true]) {
          for (const filter of [{}, { format: 'epub' as const }, { q: 'an' }, { q: 'ran' }]) {
            const whole = await ids({ ...filter, sort: { field, descending } });
            const paged: string[] = [];
            for (let page = 1; page <= 4; page++) {
              const slice = await search({ ...filter, sort: { field, descending }, page, pageSize: 2 });
              expect(slice.total).toBe(whole.length);
              paged.push(...slice.items.map((b) => b.id));
            }
            expect(paged).toEqual(whole);
          }
        }
      }
    });

    it('finds q of three or more characters anywhere inside a field, and only inside one field', async () => {
      expect(await ids({ q: 'ND OF DARK' })).toEqual(['b1']);
      expect(await ids({ q: 'iction' })).toEqual(['b3', 'b1']);
      expect(await ids({ q: 'ank herb' })).toEqual(['b3', 'b5']);
      expect(await ids({ q: 'guinscience' })).toEqual([]);
      expect(await ids({ q: 'story' })).toEqual(['b4']);
    });

    it('finds a book by what it says after an update, not before', async () => {
      const b1 = LIBRARY[0] as Book;
      await books().updateMetadata(b1.id, { title: 'Renamed', authors: ['New Person'], tags: ['newtag'], series: null }, instant(600));
      expect(await ids({ q: 'darkness' })).toEqual([]);
      expect(await ids({ q: 'hainish' })).toEqual([]);
      expect(await ids({ q: 'renamed' })).toEqual(['b1']);
      expect(await ids({ author: 'ursula k. le guin' })).toEqual(['b2']);
      expect(await ids({ author: 'new person' })).toEqual(['b1']);
      expect(await ids({ tag: 'classic' })).toEqual([]);
      expect(await ids({ tag: 'NEWTAG' })).toEqual(['b1']);
      expect(await ids({ sort: { field: 'author', descending: false } })).toEqual(['b3', 'b1', 'b5', 'b2', 'b4']);
    });
  });
}

describe.each(STORE_FACTORIES)('BookRepository contract ($name)', (factory) => bookRepositoryContract(factory));
