/**
 * KOReader digest backfill: BackfillBookDigests over N books seeded into SQLite (no digests yet),
 * each with a sparse file of its recorded size on disk (100 KB–1 MB, only a 32-byte header written),
 * read through FsBlobStore. Reports books/s and the event loop's delay during the run
 * (perf_hooks.monitorEventLoopDelay), the time a request arriving mid-backfill could wait.
 * Run: npx tsx bench/digests.ts [--books 250000] [--batch 200] [--label text] [--no-write]
 */
import { mkdir, open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { FsBlobStore } from '../src/adapters/files/fs-blob-store.js';
import { CryptoSecretGenerator } from '../src/adapters/identity/crypto-secret-generator.js';
import { createSqliteStore } from '../src/adapters/sqlite/sqlite-store.js';
import { BackfillBookDigests } from '../src/application/use-cases/backfill-book-digests.js';
import { bookFileKey } from '../src/domain/book.js';
import { appendResults, markdownTable } from './lib/results.js';
import { generatedBook } from './lib/seed-books.js';
import { seededDataDir } from './lib/seeded-store-cache.js';
import { fmt } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    books: { type: 'string', default: '250000' },
    batch: { type: 'string', default: '200' },
    label: { type: 'string', default: '' },
    'no-write': { type: 'boolean', default: false },
  },
});
const TARGET_MAX_DELAY_MS = 100;
const IDLE_MS = 5_000;
const log = (msg: string) => process.stderr.write(`[bench:digests ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const owner = { id: 'seed-owner', username: 'seeder' };

/** One sparse file per seeded book, of the size its record says, with its id in the first bytes. */
async function writeSparseFiles(dataDir: string, count: number): Promise<void> {
  await mkdir(join(dataDir, 'books'), { recursive: true });
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const book = generatedBook(i, owner);
      const handle = await open(join(dataDir, 'books', bookFileKey(book.id)), 'w');
      try {
        await handle.write(Buffer.from(book.id.padEnd(32, '.')), 0, 32, 0);
        await handle.truncate(book.fileSize);
      } finally {
        await handle.close();
      }
    }
  };
  await Promise.all(Array.from({ length: 32 }, worker));
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const count = Number(values.books);
  const batch = Number(values.batch);
  const dataDir = await seededDataDir(count, log, { digested: false });
  try {
    log(`writing ${count} sparse book files`);
    await writeSparseFiles(dataDir, count);
    const store = createSqliteStore(dataDir);
    try {
      const backfill = new BackfillBookDigests(store.books, store.digests, new FsBlobStore(dataDir), new CryptoSecretGenerator(), batch);
      const idle = monitorEventLoopDelay({ resolution: 5 });
      log(`measuring the idle event loop for ${IDLE_MS / 1000} s (the machine's own noise)`);
      idle.enable();
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      idle.disable();
      const delay = monitorEventLoopDelay({ resolution: 5 });
      log(`backfilling ${count} books in batches of ${batch}`);
      delay.enable();
      const t0 = performance.now();
      const report = await backfill.execute();
      const seconds = (performance.now() - t0) / 1000;
      delay.disable();
      const left = await store.digests.booksWithoutDigests(null, 1);
      const found = await store.digests.findBookId(new CryptoSecretGenerator().md5Hex(generatedBook(count - 1, owner).fileName));
      if (left.length > 0 || report.digested !== count || found !== generatedBook(count - 1, owner).id) {
        throw new Error(`backfill incomplete: ${JSON.stringify({ report, left, found })}`);
      }
      const ms = (ns: number) => fmt(ns / 1e6);
      const row = [count.toLocaleString('en-US'), batch, fmt(seconds, 1), fmt(count / seconds, 0), ms(delay.percentile(50)), ms(delay.percentile(99)), ms(delay.max)];
      const idleRow = ['idle (control)', '', fmt(IDLE_MS / 1000, 1), '', ms(idle.percentile(50)), ms(idle.percentile(99)), ms(idle.max)];
      const body = [
        `### KOReader digest backfill of ${count.toLocaleString('en-US')} books (SQLite, sparse files through FsBlobStore, in process)`, '',
        markdownTable(['books', 'batch', 's', 'books/s', 'loop delay p50 ms', 'p99 ms', 'max ms'], [row, idleRow]), '',
        'Loop delay: perf_hooks.monitorEventLoopDelay at a 5 ms resolution (each figure includes that 5 ms), i.e. how long a request arriving mid-run could wait; the idle row is the same measure with nothing running, the machine\'s own noise.', '',
        `Target: the event loop is never held for long (max delay < ${TARGET_MAX_DELAY_MS} ms): ${ms(delay.max)} ms.`,
      ].join('\n');
      process.stdout.write(`${body}\n`);
      if (!values['no-write']) {
        await appendResults({ title: `Digest backfill${values.label ? ` (${values.label})` : ''}`, command: `npm run bench:digests -- ${process.argv.slice(2).join(' ')}`.trim(), startedAt, body });
      }
    } finally {
      await store.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
