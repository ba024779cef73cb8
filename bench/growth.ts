/**
 * Growth: ingest generated EPUBs through POST /api/books (4 in parallel) and compare the time per book
 * of the first and last 1,000; then list and search p99 at 10k, 100k and 250k books (the rest seeded
 * straight into SQLite through the repository), beside GET /healthz at each size.
 * Run: npx tsx bench/growth.ts [--ingest 50000] [--parallel 4] [--no-write]
 */
import { rm } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { runLoad } from './lib/load.js';
import { appendResults, markdownTable } from './lib/results.js';
import { bearer, logIn, registerUser } from './lib/stacks-client.js';
import { buildStacks, startStacks } from './lib/stacks-server.js';
import { seedBooks } from './lib/seed-books.js';
import { startStacksOn } from './lib/source-stacks.js';
import { fmt, ratio } from './lib/stats.js';
import { ingestEpubs } from './lib/upload-books.js';

const { values } = parseArgs({ options: { ingest: { type: 'string', default: '50000' }, parallel: { type: 'string', default: '4' }, 'no-write': { type: 'boolean', default: false } } });
const log = (msg: string) => process.stderr.write(`[bench:growth ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const BLOCK = 1_000;

async function main(): Promise<void> {
  const startedAt = new Date();
  const count = Number(values.ingest);
  log('building dist/');
  await buildStacks();
  const first = await startStacks({ env: { BCRYPT_COST: '4' } });
  const dataDir = first.dataDir;
  try {
    const { token } = await registerUser(first.url, 'ingester');
    log(`ingesting ${count} EPUBs`);
    const t0 = performance.now();
    const ingest = await ingestEpubs(first.url, token, count, { parallel: Number(values.parallel), onProgress: (n) => log(`${n} ingested, ${fmt((performance.now() - t0) / n, 1)} ms/book so far`) });
    await first.stop();
    const blocks: number[] = [];
    for (let end = BLOCK; end <= ingest.doneAtMs.length; end += BLOCK) {
      blocks.push((ingest.doneAtMs[end - 1]! - (end > BLOCK ? ingest.doneAtMs[end - BLOCK - 1]! : 0)) / BLOCK);
    }
    const firstBlock = blocks[0]!, lastBlock = blocks[blocks.length - 1]!;
    const levels: (string | number)[][] = [];
    let books = count - ingest.failures;
    let seeded = 0;
    // Sizes below what was ingested are measured at the ingested size instead.
    for (const level of [...new Set([10_000, 100_000, 250_000].map((l) => Math.max(l, books)))]) {
      if (books < level) {
        log(`seeding ${level - books} books`);
        await seedBooks(dataDir, level - books, { from: seeded, batch: 10_000 });
        seeded += level - books;
        books = level;
      }
      const server = await startStacksOn({ dataDir, jwtSecret: 'bench-secret-0123456789-0123456789-0123456789', source: 'dist' });
      try {
        const session = await logIn(server.url, 'ingester');
        const deep = Math.floor(level / 40);
        const cases: [string, string][] = [['`GET /healthz` (baseline)', '/healthz'], ['list page 1', '/api/books'], [`list page ${deep} (middle)`, `/api/books?page=${deep}`], ['search q=harbour', '/api/books?q=harbour'], ['search q=volume 777 (ingested title)', '/api/books?q=volume%20777']];
        for (const [name, path] of cases) {
          const headers = path.startsWith('/api') ? bearer(session.token) : {};
          await runLoad({ url: `${server.url}${path}`, headers, connections: 1, amount: 5 });
          const r = await runLoad({ url: `${server.url}${path}`, headers, connections: 1, amount: 100 });
          levels.push([books.toLocaleString('en-US'), name, fmt(r.latency.p50), fmt(r.latency.p99), r.errors + r.non2xx]);
        }
      } finally {
        await server.stop();
      }
    }
    const body = [
      `Ingest: ${count} generated EPUBs (about 5 KB, distinct titles and authors) through \`POST /api/books\`, ${values.parallel} in parallel, Stacks from dist/ on SQLite; ${ingest.failures} failed; total ${fmt(ingest.doneAtMs[ingest.doneAtMs.length - 1]! / 1000, 0)} s.`,
      '',
      `Time per book per block of ${BLOCK} (ms): ${blocks.map((b) => fmt(b, 1)).join(', ')}.`,
      '',
      `First ${BLOCK}: ${fmt(firstBlock, 2)} ms/book; last ${BLOCK}: ${fmt(lastBlock, 2)} ms/book; ratio ${ratio(lastBlock, firstBlock)} (target ≤ 1.2).`,
      '',
      'List and search by library size (uploaded books plus books seeded through the SQLite repository), 100 sequential requests each after 5 warm-up:',
      '',
      markdownTable(['books', 'request', 'p50 ms', 'p99 ms', 'errors'], levels),
    ].join('\n');
    process.stdout.write(`${body}\n`);
    if (!values['no-write']) await appendResults({ title: 'Growth: ingest trend and list/search at 10k, 100k, 250k', command: `npx tsx bench/growth.ts ${process.argv.slice(2).join(' ')}`.trim(), startedAt, body });
  } finally {
    await first.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
