/**
 * List/search latency on 250,000 books through the MongoDB adapter, beside the SQLite store in the
 * same run. Server: MONGODB_URL when set, else the CongoDB stand-in (see test/support/mongo-server.ts).
 *   npx tsx bench/mongo-list.ts            BENCH_BOOKS=250000 BENCH_RUNS=200 (defaults)
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Book, BookQuery } from '../src/domain/book.js';
import { BOOK_FORMATS } from '../src/domain/book.js';
import type { BookDocument } from '../src/adapters/mongo/mongo-book-documents.js';
import { toBookDocument } from '../src/adapters/mongo/mongo-book-documents.js';
import { createMongoStore } from '../src/adapters/mongo/mongo-store.js';
import { createSqliteStore } from '../src/adapters/sqlite/sqlite-store.js';
import { appendResults, markdownTable } from './lib/results.js';
import { closeSearchBench, compareSearches } from './lib/search-bench.js';
import { fmt } from './lib/stats.js';
import { mongoServerKind, mongoTestServer } from '../test/support/mongo-server.js';

const BOOKS = Number(process.env.BENCH_BOOKS ?? 250_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 200);
/** The stand-in scans and sorts all documents in JavaScript on every query (seconds each at 250,000), so it gets fewer runs. */
const MONGO_RUNS = Number(process.env.BENCH_MONGO_RUNS ?? (mongoServerKind() === 'congodb' ? 10 : RUNS));
const BATCH = 2_000;
const WORDS = ['shadow', 'river', 'garden', 'winter', 'glass', 'empire', 'silent', 'night', 'ember', 'harbor', 'iron', 'lantern',
  'orchard', 'paper', 'quiet', 'salt', 'thorn', 'velvet', 'willow', 'zenith', 'atlas', 'bramble', 'copper', 'delta'];
const TAGS = ['fantasy', 'history', 'science fiction', 'poetry', 'biography', 'travel', 'mystery', 'romance', 'essays', 'comics'];

/** A fixed linear congruential sequence: every run seeds the same library. */
function random(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

function library(count: number): Book[] {
  const next = random(20_251_122);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)] as T;
  const books: Book[] = [];
  for (let i = 0; i < count; i++) {
    const id = `bk${String(i).padStart(7, '0')}`;
    const authors = Array.from({ length: 1 + Math.floor(next() * 2) }, () => `Author ${Math.floor(next() * 5_000)}`);
    const year = 1900 + Math.floor(next() * 125);
    books.push({
      id, title: `${pick(WORDS)} ${pick(WORDS)} ${pick(WORDS)} ${i}`, authors, description: null, publisher: null, language: 'en',
      published: next() < 0.1 ? null : `${year}`, isbn: null, tags: [pick(TAGS), pick(TAGS)], series: next() < 0.2 ? `${pick(WORDS)} saga` : null,
      seriesIndex: null, format: pick(BOOK_FORMATS), fileName: `${id}.epub`, fileSize: 1_000 + i, sha256: i.toString(16).padStart(64, '0'),
      coverMediaType: null, owner: { id: 'owner', username: 'owner' }, createdAt: new Date(1_600_000_000_000 + i * 1_000), updatedAt: new Date(1_600_000_000_000),
    });
  }
  return books;
}

const base = { page: 1, pageSize: 20 } as const;
const OPERATIONS: readonly [string, BookQuery][] = [
  ['list page 1 (title)', { ...base, sort: { field: 'title', descending: false } }],
  ['deep page 5,000 (title)', { page: 5_000, pageSize: 20, sort: { field: 'title', descending: false } }],
  ['q "lantern"', { ...base, q: 'lantern', sort: { field: 'title', descending: false } }],
  ['q "r 1234" (rare)', { ...base, q: 'r 1234', sort: { field: 'title', descending: false } }],
  ['author filter', { ...base, author: 'author 1234', sort: { field: 'title', descending: false } }],
  ['sort author', { ...base, sort: { field: 'author', descending: false } }],
  ['sort added desc', { ...base, sort: { field: 'added', descending: true } }],
  ['sort published', { ...base, sort: { field: 'published', descending: false } }],
  ['sort published desc', { ...base, sort: { field: 'published', descending: true } }],
];


async function main(): Promise<void> {
  const startedAt = new Date();
  const books = library(BOOKS);
  const server = await mongoTestServer();
  const mongo = await createMongoStore(server.database(`stacks_bench_${process.pid}`));
  const dir = mkdtempSync(join(tmpdir(), 'stacks-bench-'));
  const sqlite = createSqliteStore(dir);
  try {
    let t = performance.now();
    const collection = mongo.database.db.collection<BookDocument>('books');
    for (let i = 0; i < books.length; i += BATCH) await collection.insertMany(books.slice(i, i + BATCH).map(toBookDocument), { ordered: false });
    const mongoSeedSec = (performance.now() - t) / 1000;
    t = performance.now();
    sqlite.db.transaction(() => { for (const book of books) void sqlite.books.create(book); })();
    const sqliteSeedSec = (performance.now() - t) / 1000;
    const rows = await compareSearches(mongo.books, sqlite.books, OPERATIONS, { mongo: MONGO_RUNS, sqlite: RUNS });
    const body = [
      `- Server: **${server.name}**${mongoServerKind() === 'congodb' ? ' (a JavaScript stand-in in its own process that scans every document per query and uses no index, so these figures bound the adapter code, not a MongoDB deployment)' : ''}`,
      `- Data: ${BOOKS.toLocaleString('en-US')} books seeded with a fixed seed (Mongo: \`insertMany\` of ${BATCH} documents, ${fmt(mongoSeedSec, 1)} s; SQLite: one transaction, ${fmt(sqliteSeedSec, 1)} s); timed runs per operation after one warm-up: Mongo ${MONGO_RUNS}, SQLite ${RUNS}; page size 20${MONGO_RUNS < 50 ? ` (with ${MONGO_RUNS} runs the Mongo p99 is the slowest run)` : ''}`,
      '',
      markdownTable(['Operation', 'matches', 'Mongo p50 ms', 'Mongo p99 ms', 'SQLite p50 ms', 'SQLite p99 ms'], rows),
    ].join('\n');
    await appendResults({ title: 'MongoDB adapter: list/search on 250,000 books', command: `BENCH_BOOKS=${BOOKS} BENCH_RUNS=${RUNS} BENCH_MONGO_RUNS=${MONGO_RUNS} npx tsx bench/mongo-list.ts`, startedAt, body });
  } finally {
    await closeSearchBench(mongo, sqlite, dir);
  }
}

await main();
