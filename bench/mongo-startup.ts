/**
 * MongoDB start-up on the CongoDB stand-in: a database holding N GridFS file documents (metadata only,
 * `fs.files` inserted directly) — ms from start to the first /readyz 200, how long the housekeeping
 * after listening takes, and the heap it needs (peak over the heap at ready). Two libraries: 400,000
 * files uploaded within the sweep's grace period (housekeeping walks every file document through the
 * cursor, nothing to look up), and 20,000 files past it with every book on record (each batch of keys
 * looked up): the stand-in answers one `$in` of 500 ids over 20,000 documents in about 0.7 s (it scans),
 * so the look-ups cannot be timed at 400,000 on it. Then the cost per request of the budget counted in
 * MongoDB (shared by every instance) over no budget. The stand-in's times say nothing of MongoDB's.
 * Then N books stored before search grams existed (`--legacy`), whose backfill runs after listening.
 * Run: npm run bench:mongo-startup [-- --files 400000 --recorded 20000 --legacy 5000 --requests 2000 --no-write]
 */
import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { ObjectId } from 'mongodb';
import { pino } from 'pino';
import { toBookDocument } from '../src/adapters/mongo/mongo-book-documents.js';
import { createMongoStore } from '../src/adapters/mongo/mongo-store.js';
import { loadConfig } from '../src/bootstrap/config.js';
import { startStacks, type RunningStacks } from '../src/bootstrap/server.js';
import { aBook } from '../test/support/builders.js';
import { startCongoDb } from '../test/support/mongo-server.js';
import { appendResults, markdownTable } from './lib/results.js';
import { fmt, summarize } from './lib/stats.js';

const { values } = parseArgs({ options: { files: { type: 'string', default: '400000' }, recorded: { type: 'string', default: '20000' }, legacy: { type: 'string', default: '5000' }, requests: { type: 'string', default: '2000' }, 'no-write': { type: 'boolean', default: false } } });
const log = (msg: string) => process.stderr.write(`[bench:mongo-startup ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const quiet = pino({ level: 'silent' });
const mib = (bytes: number) => fmt(bytes / 1024 ** 2, 1);

/** N file documents, two per book (`<id>.book`, `<id>.cover`): old ones with their N/2 book records, or fresh ones (within the grace period). */
async function seed(url: string, files: number, recorded: boolean): Promise<void> {
  const store = await createMongoStore(url);
  const uploadDate = new Date(Date.now() - (recorded ? 2 * 3600_000 : 0));
  for (let start = 0; start < files / 2; start += 5_000) {
    const ids = Array.from({ length: Math.min(5_000, files / 2 - start) }, (_, i) => `book${String(start + i).padStart(8, '0')}`);
    await store.database.db.collection('fs.files').insertMany(ids.flatMap((id) => ['book', 'cover'].map((kind) => ({
      _id: new ObjectId(), filename: `${id}.${kind}`, length: 1, chunkSize: 261_120, uploadDate,
    }))));
    if (recorded) await store.database.db.collection('books').insertMany(ids.map((id) => toBookDocument(aBook({ id }))) as never[]);
  }
  await store.close();
}

/** N books stored before search grams existed (no `searchTokens`, no `searchGramsVersion`), with no files: the backfill housekeeping runs after listening. */
async function seedLegacyBooks(url: string, books: number): Promise<void> {
  const store = await createMongoStore(url);
  for (let start = 0; start < books; start += 5_000) {
    const batch = Array.from({ length: Math.min(5_000, books - start) }, (_, i) => {
      const { searchTokens: _waiting, searchGramsVersion: _unmarked, ...legacy } = toBookDocument(aBook({ id: `legacy${String(start + i).padStart(8, '0')}` }));
      return legacy;
    });
    await store.database.db.collection('books').insertMany(batch as never[]);
  }
  await store.close();
}

async function start(url: string, env: Record<string, string> = {}): Promise<{ running: RunningStacks; listeningMs: number; readyMs: number }> {
  const config = loadConfig({ DATABASE_URL: url, JWT_SECRET: 'bench-secret-0123456789-0123456789-0123456789', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env });
  const t0 = performance.now();
  const running = await startStacks(config, quiet);
  const listeningMs = performance.now() - t0;
  while ((await fetch(`http://127.0.0.1:${running.port}/readyz`).then((r) => r.status, () => 0)) !== 200) await new Promise((r) => setTimeout(r, 5));
  return { running, listeningMs, readyMs: performance.now() - t0 };
}

async function startup(base: (db: string) => string, files: number, recorded: boolean, legacyBooks = 0): Promise<(string | number)[]> {
  const url = base(`stacks_bench_startup_${files}_${legacyBooks}_${recorded ? 'recorded' : 'fresh'}`);
  log(`seeding ${files} file documents and ${legacyBooks} books without search grams`);
  await seed(url, files, recorded);
  await seedLegacyBooks(url, legacyBooks);
  global.gc?.();
  const { running, listeningMs, readyMs } = await start(url);
  const liveHeap = () => (global.gc?.(), process.memoryUsage().heapUsed);
  const heapAtReady = liveHeap();
  let peak = heapAtReady;
  const sampler = setInterval(() => (peak = Math.max(peak, liveHeap())), 100);
  const t0 = performance.now();
  const ran = await running.housekeeping;
  const outcome = ran === 'not-here' ? ran : ran === 'failed' || ran.failed.length > 0 ? `failed ${ran === 'failed' ? '' : ran.failed.join(', ')}`.trim() : 'done';
  const housekeepingMs = performance.now() - t0;
  clearInterval(sampler);
  await running.close();
  log(`${files} files: ready in ${fmt(readyMs, 0)} ms, housekeeping ${outcome} in ${fmt(housekeepingMs / 1000, 1)} s`);
  const library = legacyBooks > 0 ? `${legacyBooks.toLocaleString('en')} books stored before search grams, backfilled after listening`
    : recorded ? 'past the grace period, every book on record' : 'within the grace period';
  return [files.toLocaleString('en'), library, fmt(listeningMs, 0), fmt(readyMs, 0), outcome, fmt(housekeepingMs / 1000, 1), mib(heapAtReady), mib(peak - heapAtReady)];
}

/** Sequential requests (401 without a token, right after the limiter): latency with the shared budget and without any. */
async function budgetCost(base: (db: string) => string, requests: number): Promise<(string | number)[][]> {
  const rows: (string | number)[][] = [];
  for (const [name, limit] of [['no budget (RATE_LIMIT_PER_MINUTE=0)', '0'], ['budget counted in MongoDB', '1000000']] as const) {
    const { running } = await start(base('stacks_bench_budget'), { RATE_LIMIT_PER_MINUTE: limit, REGISTER_LIMIT_PER_HOUR: '0' });
    const samples: number[] = [];
    for (let i = 0; i < requests; i++) {
      const t0 = performance.now();
      await fetch(`http://127.0.0.1:${running.port}/api/auth/me`).then((r) => r.arrayBuffer());
      samples.push(performance.now() - t0);
    }
    await running.close();
    const s = summarize(samples.slice(requests / 10));
    rows.push([name, fmt(s.p50), fmt(s.p90), fmt(s.p99)]);
  }
  return rows;
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const server = await startCongoDb();
  try {
    const rows = [
      await startup(server.database, Number(values.recorded), true),
      await startup(server.database, Number(values.files), false),
      await startup(server.database, 0, false, Number(values.legacy)),
    ];
    const cost = await budgetCost(server.database, Number(values.requests));
    const body = [
      'CongoDB stand-in (one-member replica set handshake), Stacks in this process; housekeeping = index layout check, search-gram backfill, orphan-chunk sweep, revocation and code purges, temp files, reconcile of every stored file against its book, the KOReader digest walk (once), each step under its own lease.',
      '',
      markdownTable(['fs.files documents', 'files', 'start → listening (ms)', 'start → /readyz 200 (ms)', 'housekeeping', 'housekeeping (s)', 'live heap at ready (MiB)', 'live heap peak over ready (MiB)'], rows),
      '',
      'Target: /readyz within 1 s of start at 400,000 files; housekeeping heap that does not grow with the file count.',
      'With books waiting for their search grams the instance listens at once, but the stand-in serves one command at a time and scans for each',
      'update of the backfill, so /readyz (one `hello`) waits behind the batch in progress; MongoDB serves the two side by side.',
      '',
      `Per-request cost of the shared request budget (${values.requests} sequential GET /api/auth/me → 401, first 10% dropped, ms):`,
      '',
      markdownTable(['limiter', 'p50', 'p90', 'p99'], cost),
    ].join('\n');
    console.log(body);
    if (!values['no-write']) await appendResults({
      title: `MongoDB start-up at ${Number(values.files).toLocaleString('en')} stored files, and the shared request budget`,
      command: `npm run bench:mongo-startup -- ${process.argv.slice(2).join(' ')}`.replace(/ -- $/, ''), startedAt, body,
    });
  } finally {
    await server.stop();
  }
}

await main();
// The stand-in child's stdin pipe keeps the event loop alive after it stops.
process.exit(0);
