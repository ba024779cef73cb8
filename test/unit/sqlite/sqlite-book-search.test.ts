import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { InMemoryBookRepository } from '../../../src/adapters/memory/in-memory-book-repository.js';
import { createSqliteStore, type SqliteStore } from '../../../src/adapters/sqlite/sqlite-store.js';
import { BOOK_SORTS, type Book, type BookQuery } from '../../../src/domain/book.js';
import { aBook, instant } from '../../support/builders.js';

// SQLite pages a query one of two ways (sort every match, or walk the sort index checking each book, by their
// estimated cost), with the total from a maintained count or count(*); every way must agree with the in-memory
// store, the reference, on a library big enough for either.
const WORDS = ['harbour', 'lantern', 'stone', 'winter', 'orchard', 'copper', 'meadow'];
const TAGS = ['fiction', 'poetry', 'history'];

function library(size: number): Book[] {
  return Array.from({ length: size }, (_, i) =>
    aBook({
      id: `lib-${String(i).padStart(5, '0')}`,
      title: `${WORDS[i % 7]} ${WORDS[(i * 3) % 5]} ${i % 97}`,
      authors: i % 11 === 0 ? [] : [`Writer ${i % 13}`],
      tags: [TAGS[i % 3]!, ...(i % 4 === 0 ? [TAGS[(i + 1) % 3]!] : []), ...(i % 10 === 0 ? [TAGS[i % 3]!.toUpperCase()] : [])],
      series: i % 9 === 0 ? 'Harbour Cycle' : null,
      published: i % 6 === 0 ? null : `${1950 + (i % 40)}`,
      format: i % 5 === 0 ? 'pdf' : 'epub',
      createdAt: instant(i % 300),
    }));
}

describe('book search on a large library: SQLite agrees with the reference store', () => {
  const memory = new InMemoryBookRepository();
  let sqlite: SqliteStore;

  beforeAll(async () => {
    sqlite = createSqliteStore(':memory:');
    for (const book of library(1_500)) {
      await memory.create(book);
      await sqlite.books.create(book);
    }
  }, 60_000);
  afterAll(async () => sqlite.close());

  const filters: Partial<BookQuery>[] = [
    {}, { q: 'harbour' }, { q: 'har' }, { q: 'stone winter' }, { q: 'er' }, { q: 'lantern 5' }, { tag: 'poetry' },
    { author: 'writer 3' }, { q: 'harbour', tag: 'fiction' }, { format: 'pdf' }, { q: 'copper', format: 'epub' }, { q: 'zzz' },
    { q: 'e' }, { q: 'H' }, { q: 'ha' }, { q: 'zz' }, { q: '9' }, { tag: 'history' }, { tag: 'HISTORY', q: 'r' }, { author: 'writer 3', q: 'w' },
    { q: 'o', format: 'pdf' }, { q: 'on', tag: 'poetry', author: 'writer 1' },
  ];
  const sorts = BOOK_SORTS.flatMap((field) => [{ field, descending: false }, { field, descending: true }]);

  for (const filter of filters) {
    it(`pages ${JSON.stringify(filter)} identically in every sort (first, middle, last and past the end)`, async () => {
      for (const sort of sorts) {
        const expected = await memory.search({ ...filter, sort, page: 1, pageSize: 100 });
        const lastPage = Math.max(1, Math.ceil(expected.total / 20));
        for (const page of new Set([1, Math.ceil(lastPage / 2), lastPage, lastPage + 1])) {
          const query: BookQuery = { ...filter, sort, page, pageSize: 20 };
          const [want, got] = [await memory.search(query), await sqlite.books.search(query)];
          expect({ sort, page, total: got.total, ids: got.items.map((b) => b.id) }).toEqual({ sort, page, total: want.total, ids: want.items.map((b) => b.id) });
        }
      }
    });
  }
});
