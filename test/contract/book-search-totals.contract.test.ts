import { beforeEach, describe, expect, it } from 'vitest';
import { bookSearchText, type Book, type BookQuery, type BookSort } from '../../src/domain/book.js';
import type { MetadataPatch } from '../../src/domain/book-metadata.js';
import { aBook, instant } from '../support/builders.js';
import type { StoreFactory } from './stores.js';
import { STORE_FACTORIES, useStore } from './stores.js';

const WORDS = ['Harbour', 'Kite', 'Lantern', 'Winter', 'Orchard', 'Quill'];
const TAGS = ['History', 'Poetry', 'Travel'];

/** A library where a letter, a two-letter run and a tag each match many books, in several sort orders. */
function library(size: number): Book[] {
  return Array.from({ length: size }, (_, i) => aBook({
    id: `dense-${String(i).padStart(3, '0')}`,
    title: `${WORDS[i % 6]} ${WORDS[(i * 5) % 6]} ${i}`,
    authors: i % 7 === 0 ? [] : [`Writer ${i % 5}`],
    tags: i % 3 === 0 ? ['History', 'history'] : [TAGS[i % 3]!],
    series: i % 4 === 0 ? 'Ki Cycle' : null,
    published: i % 5 === 0 ? null : String(1950 + (i % 13)),
    format: i % 2 === 0 ? 'epub' : 'pdf',
    createdAt: instant(1_000 + (i % 17)),
  }));
}

/** What each query shape matches, by the rules of the contract (docs/decisions/search.md, "Search text"). */
type Shape = Pick<BookQuery, 'q' | 'tag' | 'author' | 'format'>;
function matches(book: Book, shape: Shape): boolean {
  return (shape.q === undefined || bookSearchText(book).includes(shape.q.toLowerCase()))
    && (shape.tag === undefined || book.tags.some((t) => t.toLowerCase() === shape.tag!.toLowerCase()))
    && (shape.author === undefined || book.authors.some((a) => a.toLowerCase() === shape.author!.toLowerCase()))
    && (shape.format === undefined || book.format === shape.format);
}

const binary = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const SHAPES: readonly Shape[] = [
  {}, { q: 'a' }, { q: 'K' }, { q: 'ki' }, { q: 'r ' }, { q: 'zz' }, { q: 'harbour' }, { tag: 'HISTORY' }, { tag: 'poetry' },
  { author: 'writer 3' }, { format: 'pdf' }, { q: 'ki', tag: 'history' }, { q: 'e', format: 'epub' }, { q: 'cd' },
];

function bookSearchTotalsContract(factory: StoreFactory): void {
  const store = useStore(factory);
  const books = () => store().books;
  const search = (query: Partial<BookQuery>) => books().search({ sort: { field: 'title', descending: false }, page: 1, pageSize: 1_000, ...query });

  /** Every shape's total equals the number of books the rules match, and the whole list holds exactly those. */
  async function expectExactTotals(model: ReadonlyMap<string, Book>, when: string): Promise<void> {
    for (const shape of SHAPES) {
      const want = [...model.values()].filter((book) => matches(book, shape)).map((b) => b.id).sort();
      const got = await search(shape);
      expect({ when, shape, total: got.total, ids: got.items.map((b) => b.id).sort() }).toEqual({ when, shape, total: want.length, ids: want });
    }
  }

  describe('dense searches', () => {
    const LIBRARY = library(90);
    beforeEach(async () => {
      for (const book of LIBRARY) await books().create(book);
    });

    const sorts: BookSort[] = [{ field: 'title', descending: false }, { field: 'title', descending: true }, { field: 'added', descending: true },
      { field: 'author', descending: false }, { field: 'published', descending: true }];
    for (const shape of [{ q: 'i' }, { q: 'Ki' }, { tag: 'history' }, { q: 'e', tag: 'history' }, { format: 'epub' as const }]) {
      it(`pages ${JSON.stringify(shape)} with the exact total on every page, in the order of one whole page, for every order`, async () => {
        const want = LIBRARY.filter((book) => matches(book, shape)).length;
        expect(want).toBeGreaterThan(20);
        for (const sort of sorts) {
          const whole = await search({ ...shape, sort });
          expect(whole.total).toBe(want);
          for (const pageSize of [1, 7]) {
            const paged: string[] = [];
            for (let page = 1; page <= Math.ceil(want / pageSize) + 1; page++) {
              const slice = await search({ ...shape, sort, page, pageSize });
              expect(slice.total).toBe(want);
              paged.push(...slice.items.map((b) => b.id));
            }
            expect(paged, `${JSON.stringify(sort)} by ${pageSize}`).toEqual(whole.items.map((b) => b.id));
          }
        }
      });
    }

    it('sorts a dense page by title case-insensitively, ties by id, both ways', async () => {
      const ascending = (await search({ q: 'k', pageSize: 10 })).items.map((b) => b.id);
      const want = LIBRARY.filter((book) => matches(book, { q: 'k' }))
        .sort((a, b) => binary(a.title.toLowerCase(), b.title.toLowerCase()) || binary(a.id, b.id))
        .map((b) => b.id);
      expect(ascending).toEqual(want.slice(0, 10));
      const last = (await search({ q: 'k', sort: { field: 'title', descending: true }, pageSize: 3 })).items.map((b) => b.id);
      expect(last).toEqual(want.slice(-3).reverse());
    });
  });

  describe('totals stay exact', () => {
    it('through inserts, edits and deletes, a book listing a tag twice and a NUL inside a field included', async () => {
      const model = new Map<string, Book>();
      const create = async (book: Book) => { await books().create(book); model.set(book.id, book); };
      const edit = async (id: string, patch: MetadataPatch, at: number) => {
        const updated = await books().updateMetadata(id, patch, instant(at));
        if (updated) model.set(id, updated);
      };
      const remove = async (id: string) => { if (await books().delete(id)) model.delete(id); };

      await expectExactTotals(model, 'empty');
      for (const book of library(40)) await create(book);
      await create(aBook({ id: 'nul', title: 'Ab\u0000cd', tags: ['x\u0000cd'], format: 'txt' }));
      await expectExactTotals(model, 'after 41 inserts');
      await edit('dense-000', { title: 'Zz Top', tags: ['Poetry'], authors: ['Writer 3', 'WRITER 3'], series: null }, 2_000);
      await edit('dense-003', { tags: ['history', 'HISTORY', 'History'] }, 2_001);
      await edit('dense-004', { title: 'No Change Here' }, 2_002);
      await edit('dense-004', { title: 'No Change Here' }, 2_003);
      await edit('nul', { title: 'plain' }, 2_004);
      await edit('missing', { title: 'Ki' }, 2_005);
      await expectExactTotals(model, 'after edits');
      for (const id of ['dense-003', 'dense-006', 'dense-010', 'nul', 'missing']) await remove(id);
      await expectExactTotals(model, 'after deletes');
      const again = aBook({ id: 'dense-003', title: 'Kite Again', tags: ['History'] });
      await create(again);
      await expectExactTotals(model, 'after a deleted id came back');
    });

    it('when two writers interleave inserts, edits and deletes, 100 writes at once', async () => {
      const model = new Map<string, Book>();
      const first = library(60);
      for (const book of first) { await books().create(book); model.set(book.id, book); }
      const added = Array.from({ length: 40 }, (_, i) => aBook({ id: `late-${i}`, title: `Kiwi ${WORDS[i % 6]} ${i}`, tags: i % 2 ? ['History'] : ['Art'] }));
      const writerA = added.map((book) => async () => { await books().create(book); model.set(book.id, book); });
      const writerB = first.slice(0, 60).map((book, i) => async () => {
        if (i % 3 === 0) {
          await books().delete(book.id);
          model.delete(book.id);
        } else {
          const updated = await books().updateMetadata(book.id, { title: `Edited ${i} ka`, tags: i % 2 ? [] : ['poetry', 'History'] }, instant(3_000 + i));
          if (updated) model.set(book.id, updated);
        }
      });
      const interleaved = writerB.flatMap((write, i) => (i < writerA.length ? [write, writerA[i]!] : [write]));
      expect(interleaved).toHaveLength(100);
      await Promise.all(interleaved.map((write) => write()));
      await expectExactTotals(model, 'after two writers');
    });
  });
}

describe.each(STORE_FACTORIES)('BookRepository contract: dense searches and exact totals ($name)', (factory) => bookSearchTotalsContract(factory));
