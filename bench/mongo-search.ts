/**
 * Broad searches and deep pages through the MongoDB adapter (issue 23), beside the SQLite store in the
 * same run as the baseline: a one-letter `q` most books hold, a long `q` (its rarest gram sent to the
 * index), a tag a sixth of the books carry, deep pages of each, and a reader's `status` and `read`
 * searches over 2,000 progress records. Totals are checked equal between the two stores.
 * Server: MONGODB_URL when set, else the CongoDB stand-in (which scans every document per query in
 * JavaScript and uses no index: its figures bound the adapter's round trips, not MongoDB's speed).
 *   npm run bench:mongo-search                  BENCH_BOOKS=100000 BENCH_RUNS=20 BENCH_MONGO_RUNS=3 (stand-in defaults)
 *   BENCH_RECORD=0 npm run bench:mongo-search   prints, appends nothing to bench/RESULTS.md (a loaded machine)
 */
import { mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProgressRepository } from '../src/application/ports.js';
import type { BookQuery } from '../src/domain/book.js';
import type { StoredProgress } from '../src/domain/reading-progress.js';
import type { BookDocument } from '../src/adapters/mongo/mongo-book-documents.js';
import { toBookDocument } from '../src/adapters/mongo/mongo-book-documents.js';
import { createMongoStore } from '../src/adapters/mongo/mongo-store.js';
import { createSqliteStore } from '../src/adapters/sqlite/sqlite-store.js';
import { appendResults, markdownTable } from './lib/results.js';
import { closeSearchBench, compareSearches } from './lib/search-bench.js';
import { generatedBook } from './lib/seed-books.js';
import { mongoServerKind, mongoTestServer } from '../test/support/mongo-server.js';

const BOOKS = Number(process.env.BENCH_BOOKS ?? 100_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const MONGO_RUNS = Number(process.env.BENCH_MONGO_RUNS ?? (mongoServerKind() === 'congodb' ? 3 : RUNS));
const RECORDS = Math.min(2_000, Math.floor(BOOKS / 2));
const BATCH = 2_000;
const OWNER = { id: 'owner', username: 'owner' };
const READER = 'reader';

const title = { field: 'title', descending: false } as const;
const deepPage = Math.floor(BOOKS / 20 / 3);
const OPERATIONS: readonly [string, BookQuery][] = [
  ['unfiltered, page 1 by title (baseline shape)', { page: 1, pageSize: 20, sort: title }],
  [`unfiltered, page ${deepPage} by title`, { page: deepPage, pageSize: 20, sort: title }],
  ['q "e" (one letter, most books), page 1', { page: 1, pageSize: 20, q: 'e', sort: title }],
  [`q "e", page ${Math.floor(deepPage / 2)}`, { page: Math.floor(deepPage / 2), pageSize: 20, q: 'e', sort: title }],
  ['q "an" (two letters), page 1 newest first', { page: 1, pageSize: 20, q: 'an', sort: { field: 'added', descending: true } }],
  ['q "harbour lantern" (long: rarest gram + substring)', { page: 1, pageSize: 20, q: 'harbour lantern', sort: title }],
  ['tag "fiction" (about a sixth), page 1', { page: 1, pageSize: 20, tag: 'fiction', sort: title }],
  [`tag "fiction", page ${Math.floor(deepPage / 6)}`, { page: Math.floor(deepPage / 6), pageSize: 20, tag: 'fiction', sort: title }],
  [`status unread (${RECORDS.toLocaleString('en-US')} records), page 1`, { page: 1, pageSize: 20, status: 'unread', reader: READER, sort: title }],
  [`status reading (${(RECORDS / 2).toLocaleString('en-US')} records), page 10`, { page: 10, pageSize: 20, status: 'reading', reader: READER, sort: title }],
  ['read order, page 1', { page: 1, pageSize: 20, reader: READER, sort: { field: 'read', descending: true } }],
];

function progressRecords(): StoredProgress[] {
  return Array.from({ length: RECORDS }, (_, i) => ({
    userId: READER, bookId: generatedBook((i * 7) % BOOKS, OWNER).id, status: i % 2 === 0 ? 'reading' : 'finished', percentage: 0.5,
    locator: null, device: null, deviceId: null, updatedAt: new Date(Date.UTC(2024, 0, 1) + i * 60_000),
  }));
}


async function seed(progress: ProgressRepository, records: readonly StoredProgress[]): Promise<void> {
  for (const record of records) await progress.put(record);
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const load = loadavg()[0] ?? 0;
  const server = await mongoTestServer();
  const mongo = await createMongoStore(server.database(`stacks_bench_search_${process.pid}`));
  const dir = mkdtempSync(join(tmpdir(), 'stacks-bench-search-'));
  const sqlite = createSqliteStore(dir);
  try {
    const collection = mongo.database.db.collection<BookDocument>('books');
    for (let i = 0; i < BOOKS; i += BATCH) {
      const books = Array.from({ length: Math.min(BATCH, BOOKS - i) }, (_, j) => generatedBook(i + j, OWNER));
      await collection.insertMany(books.map(toBookDocument), { ordered: false });
      sqlite.db.transaction(() => { for (const book of books) void sqlite.books.create(book); })();
    }
    const at = new Date(Date.UTC(2024, 0, 1));
    await sqlite.users.create({ id: READER, username: READER, email: 'reader@example.test', passwordHash: null, roles: ['reader'], authProvider: 'local',
      oidc: null, disabled: false, tokenVersion: 0, createdAt: at, updatedAt: at });
    const records = progressRecords();
    await seed(mongo.progress, records);
    await seed(sqlite.progress, records);
    const rows = await compareSearches(mongo.books, sqlite.books, OPERATIONS, { mongo: MONGO_RUNS, sqlite: RUNS });
    const body = [
      `- Server: **${server.name}**${mongoServerKind() === 'congodb' ? ' (a JavaScript stand-in that scans every document per query and uses no index: the figures bound the adapter\'s round trips and batches, not a MongoDB deployment)' : ''}`,
      `- Data: ${BOOKS.toLocaleString('en-US')} generated books (bench/lib/seed-books.ts), a reader with ${RECORDS.toLocaleString('en-US')} progress records; runs per operation after one warm-up: Mongo ${MONGO_RUNS}, SQLite ${RUNS} (the same run's baseline); page size 20; totals equal in both stores`,
      `- Load: 1-minute load average ${load.toFixed(2)} at the start`,
      '',
      markdownTable(['Operation', 'matches', 'Mongo p50 ms', 'Mongo p99 ms', 'SQLite p50 ms', 'SQLite p99 ms'], rows),
    ].join('\n');
    if (process.env.BENCH_RECORD === '0') console.info(body);
    else await appendResults({ title: `MongoDB adapter: broad searches and deep pages on ${BOOKS.toLocaleString('en-US')} books`, command: `BENCH_BOOKS=${BOOKS} BENCH_RUNS=${RUNS} BENCH_MONGO_RUNS=${MONGO_RUNS} npm run bench:mongo-search`, startedAt, body });
  } finally {
    await closeSearchBench(mongo, sqlite, dir);
  }
}

await main();
