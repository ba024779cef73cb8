import { createHash } from 'node:crypto';
import { createSqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';
import type { Book } from '../../src/domain/book.js';
import { seededRandom } from './seeded-random.js';

const FIRST = ['Ada', 'Ben', 'Chloe', 'Dmitri', 'Elena', 'Farid', 'Grace', 'Hugo', 'Ines', 'Jonas', 'Kira', 'Lars', 'Mina', 'Noor', 'Oskar', 'Priya'];
const LAST = ['Abbott', 'Brandt', 'Castillo', 'Dahl', 'Eriksen', 'Fontaine', 'Guerra', 'Holm', 'Ibsen', 'Jovanovic', 'Kowalski', 'Lindqvist', 'Moreau', 'Nakamura', 'Okafor', 'Petrov', 'Quinn', 'Rossi', 'Sato', 'Tanaka'];
const WORDS = ['Harbour', 'Lantern', 'Quiet', 'River', 'Stone', 'Winter', 'Orchard', 'Signal', 'Copper', 'Meadow', 'Ember', 'North', 'Glass', 'Salt', 'Iron', 'Willow', 'Crown', 'Atlas', 'Tide', 'Falcon'];
const TAGS = ['fiction', 'history', 'science', 'poetry', 'travel', 'mystery', 'fantasy', 'biography', 'essays', 'drama', 'cooking', 'art'];
const FORMATS = ['epub', 'pdf', 'txt', 'mobi'] as const;

export interface SeedOptions {
  /** Index of the first generated book (titles, ids and hashes derive from it, so runs add, never clash). */
  readonly from?: number;
  readonly owner?: { id: string; username: string };
  /** Rows per transaction. */
  readonly batch?: number;
}

/** The i-th generated book: distinct title, one of 320 authors, 1–2 of 12 tags, no file on disk. */
export function generatedBook(i: number, owner: { id: string; username: string }): Book {
  const rnd = seededRandom(i + 1);
  const at = new Date(Date.UTC(2020, 0, 1) + i * 1000);
  const author = `${rnd.pick(FIRST)} ${rnd.pick(LAST)}`;
  return {
    id: `seed${i.toString(36).padStart(6, '0')}`,
    title: `${rnd.pick(WORDS)} ${rnd.pick(WORDS)} ${i}`,
    authors: [author],
    description: null,
    publisher: null,
    language: 'en',
    published: String(1900 + rnd.int(0, 125)),
    isbn: null,
    tags: Array.from(new Set([rnd.pick(TAGS), rnd.pick(TAGS)])),
    series: i % 10 === 0 ? `${rnd.pick(WORDS)} Cycle` : null,
    seriesIndex: i % 10 === 0 ? rnd.int(1, 9) : null,
    format: rnd.pick(FORMATS),
    fileName: `book-${i}.epub`,
    fileSize: 100_000 + rnd.int(0, 900_000),
    sha256: createHash('sha256').update(`seed-${i}`).digest('hex'),
    coverMediaType: null,
    owner,
    createdAt: at,
    updatedAt: at,
  };
}

/**
 * Inserts `count` generated books straight into `<dataDir>/stacks.db` through the SQLite repository
 * (the server must not be running). Returns the ids in insertion order.
 */
export async function seedBooks(dataDir: string, count: number, options: SeedOptions = {}): Promise<string[]> {
  const store = createSqliteStore(dataDir);
  const owner = options.owner ?? { id: 'seed-owner', username: 'seeder' };
  const from = options.from ?? 0;
  const batch = options.batch ?? 5_000;
  const ids: string[] = [];
  try {
    store.db.pragma('synchronous = OFF');
    for (let start = from; start < from + count; start += batch) {
      const end = Math.min(from + count, start + batch);
      const written: Promise<void>[] = [];
      // The repository writes synchronously, so one outer transaction holds the whole batch.
      store.db.transaction(() => {
        for (let i = start; i < end; i++) {
          const book = generatedBook(i, owner);
          written.push(store.books.create(book));
          ids.push(book.id);
        }
      })();
      await Promise.all(written);
    }
    store.db.pragma('synchronous = FULL');
  } finally {
    await store.close();
  }
  return ids;
}
