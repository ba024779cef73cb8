/**
 * Books: a 200 MB upload (server peak RSS growth, throughput vs a plain file copy), metadata
 * extraction of a 100 MB EPUB (vs a small one and a plain hash of the file), and list/search/sort
 * latency on 250,000 books seeded into SQLite (vs GET /healthz in the same run).
 * Run: npx tsx bench/books.ts [--books 250000] [--only upload,metadata,library] [--label text] [--no-write]
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { copyFile, mkdtemp, open, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SafeMetadataReader } from '../src/adapters/metadata/safe-metadata-reader.js';
import { writeBigEpub } from './lib/big-epub.js';
import { benchEpub } from './lib/book-bytes.js';
import { runLoad } from './lib/load.js';
import { uploadFileStreaming } from './lib/multipart-file.js';
import { mib, watchRss } from './lib/proc-stats.js';
import { appendResults, markdownTable } from './lib/results.js';
import { bearer, registerUser } from './lib/stacks-client.js';
import { buildStacks } from './lib/stacks-server.js';
import { seededDataDir } from './lib/seeded-store-cache.js';
import { seededRandom } from './lib/seeded-random.js';
import { startStacksOn } from './lib/source-stacks.js';
import { fmt, summarize } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    books: { type: 'string', default: '250000' },
    only: { type: 'string', default: 'upload,metadata,library' },
    label: { type: 'string', default: '' },
    'no-write': { type: 'boolean', default: false },
  },
});
const parts = new Set(values.only.split(','));
const log = (msg: string) => process.stderr.write(`[bench:books ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const secret = 'bench-secret-0123456789-0123456789-0123456789';

async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Copy with the same durability as an upload: stream into a new file, fsync, close. */
async function copyDurably(from: string, to: string): Promise<void> {
  const out = await open(to, 'wx', 0o600);
  for await (const chunk of createReadStream(from, { highWaterMark: 64 * 1024 })) await out.write(chunk as Buffer);
  await out.sync();
  await out.close();
}

async function bigUpload(work: string): Promise<string> {
  const file = join(work, 'big.epub');
  await writeBigEpub(file, 200_000_000, 'Two Hundred Megabytes');
  const size = (await stat(file)).size;
  const dataDir = await mkdtemp(join(tmpdir(), 'stacks-big-'));
  const server = await startStacksOn({ dataDir, jwtSecret: secret, source: 'dist' });
  try {
    const { token } = await registerUser(server.url, 'uploader');
    const rows: (string | number)[][] = [];
    const t = { copy: 0, durable: 0, upload: 0 };
    let t0 = performance.now();
    await copyFile(file, join(dataDir, 'copy.bin'));
    t.copy = performance.now() - t0;
    t0 = performance.now();
    await copyDurably(file, join(dataDir, 'copy2.bin'));
    t.durable = performance.now() - t0;
    await rm(join(dataDir, 'copy.bin'));
    await rm(join(dataDir, 'copy2.bin'));
    // A first small upload starts the metadata worker thread, whose heap is not upload memory.
    const small = join(work, 'warm.epub');
    await writeFile(small, await benchEpub('Warm-up', 'Warm Author', seededRandom(2), 4096));
    const warm = watchRss(server.pid);
    if ((await uploadFileStreaming(server.url, token, small, 'warm.epub')).status !== 201) throw new Error('warm-up upload failed');
    const warmMem = await warm.stop();
    await new Promise((r) => setTimeout(r, 1000));
    const rss = watchRss(server.pid);
    t0 = performance.now();
    const answer = await uploadFileStreaming(server.url, token, file, 'big.epub');
    t.upload = performance.now() - t0;
    const mem = await rss.stop();
    if (answer.status !== 201) throw new Error(`upload: ${answer.status} ${answer.body.slice(0, 200)}`);
    const mbps = (ms: number) => fmt(size / 1024 / 1024 / (ms / 1000), 0);
    rows.push(['`fs.copyFile` (baseline)', fmt(t.copy, 0), mbps(t.copy), '1', '-']);
    rows.push(['stream copy + fsync (baseline)', fmt(t.durable, 0), mbps(t.durable), fmt(t.copy / t.durable), '-']);
    rows.push(['first upload, 4 KB EPUB (starts the metadata worker)', '-', '-', '-', `${mib(warmMem.peak - warmMem.first)} MiB`]);
    rows.push(['`POST /api/books` multipart (201)', fmt(t.upload, 0), mbps(t.upload), fmt(t.copy / t.upload), `${mib(mem.peak - mem.first)} MiB (${mib(mem.first)} → peak ${mib(mem.peak)})`]);
    return [`### 200 MB upload (${(size / 1e6).toFixed(0)} MB EPUB, one stored 200 MB entry)`, '',
      markdownTable(['operation', 'ms', 'MiB/s', '× fs.copyFile', 'server RSS growth'], rows), '',
      `Targets: RSS growth < 50 MB (${mib(mem.peak - mem.first)} MiB); throughput ≥ 0.5× copy (${fmt(t.copy / t.upload)}× fs.copyFile, ${fmt(t.durable / t.upload)}× the durable stream copy).`].join('\n');
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function metadata(work: string): Promise<string> {
  const big = join(work, 'hundred.epub');
  await writeBigEpub(big, 100_000_000, 'One Hundred Megabytes');
  const small = join(work, 'small.epub');
  await writeFile(small, await benchEpub('Small', 'Small Author', seededRandom(1), 4096));
  const reader = new SafeMetadataReader();
  const staged = async (path: string) => ({ handle: path, size: (await stat(path)).size, sha256: '' });
  const times = (n: number) => ({ n, ms: [] as number[] });
  const runs = { cold: 0, small: times(20), big: times(20), hash: times(5) };
  try {
    let t0 = performance.now();
    await reader.read(await staged(small));
    runs.cold = performance.now() - t0;
    for (const [path, bucket] of [[small, runs.small], [big, runs.big]] as const) {
      for (let i = 0; i < bucket.n; i++) {
        t0 = performance.now();
        const got = await reader.read(await staged(path));
        bucket.ms.push(performance.now() - t0);
        if (got.format !== 'epub') throw new Error('not read as EPUB');
      }
    }
    for (let i = 0; i < runs.hash.n; i++) {
      t0 = performance.now();
      await sha256File(big);
      runs.hash.ms.push(performance.now() - t0);
    }
  } finally {
    await reader.close();
  }
  const row = (name: string, ms: number[]) => { const s = summarize(ms); return [name, ms.length, fmt(s.p50), fmt(s.max)]; };
  const bigP50 = summarize(runs.big.ms).p50;
  return ['### Metadata extraction (`SafeMetadataReader`, worker pool, warm)', '',
    markdownTable(['input', 'runs', 'p50 ms', 'max ms'], [
      row('small EPUB, 4 KB (baseline: the worker round trip)', runs.small.ms),
      row('100 MB EPUB', runs.big.ms),
      row('SHA-256 of the 100 MB file (baseline: reading every byte once)', runs.hash.ms),
      ['first read after start (spawns a worker)', 1, fmt(runs.cold), '-'],
    ]), '', `Target < 200 ms for 100 MB: p50 ${fmt(bigP50)} ms, max ${fmt(summarize(runs.big.ms).max)} ms.`].join('\n');
}

async function library(count: number): Promise<string> {
  const dataDir = await seededDataDir(count, log);
  const server = await startStacksOn({ dataDir, jwtSecret: secret, source: 'dist' });
  try {
    const { token } = await registerUser(server.url, 'librarian');
    const lastPage = Math.ceil(count / 20);
    const queries: [string, string][] = [
      ['`GET /healthz` (baseline)', '/healthz'],
      ['list, default sort (-added), page 1', '/api/books'],
      ['list, page 500', '/api/books?page=500'],
      [`list, last page (${lastPage})`, `/api/books?page=${lastPage}`],
      ['sort=title, page 1', '/api/books?sort=title'],
      ['sort=-title, page 5000', '/api/books?sort=-title&page=5000'],
      ['sort=author, page 1', '/api/books?sort=author'],
      ['sort=-published, page 1', '/api/books?sort=-published'],
      ['search q=harbour (≈10% match), page 1', '/api/books?q=harbour'],
      ['search q=harbour, page 1000', '/api/books?q=harbour&page=1000'],
      ['search q=stone winter 12345 (1 match)', '/api/books?q=winter%2012345'],
      ['search q=ri (2 letters: no trigram)', '/api/books?q=ri'],
      ['filter author=ada abbott', '/api/books?author=ada%20abbott'],
      ['filter tag=poetry, sort=title', '/api/books?tag=poetry&sort=title'],
    ];
    const rows: (string | number)[][] = [];
    for (const [name, path] of queries) {
      const headers = path.startsWith('/api') ? bearer(token) : {};
      await runLoad({ url: `${server.url}${path}`, headers, connections: 1, amount: 5 });
      const r = await runLoad({ url: `${server.url}${path}`, headers, connections: 1, amount: 100 });
      log(`${name}: p99 ${fmt(r.latency.p99)} ms`);
      rows.push([name, r.latency.count, fmt(r.latency.p50), fmt(r.latency.p99), r.errors + r.non2xx]);
    }
    return [`### List, search and sort on ${count.toLocaleString('en-US')} books (seeded straight into SQLite)`, '',
      'Sequential requests (1 connection), 100 measured after 5 warm-up, page_size 20, Stacks from dist/.', '',
      markdownTable(['request', 'n', 'p50 ms', 'p99 ms', 'errors'], rows)].join('\n');
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const startedAt = new Date();
  log('building dist/');
  await buildStacks();
  const work = await mkdtemp(join(tmpdir(), 'stacks-books-bench-'));
  try {
    const sections: string[] = [];
    if (parts.has('upload')) sections.push(await bigUpload(work));
    if (parts.has('metadata')) sections.push(await metadata(work));
    if (parts.has('library')) sections.push(await library(Number(values.books)));
    const body = sections.join('\n\n');
    process.stdout.write(`${body}\n`);
    if (!values['no-write']) await appendResults({ title: `Books: ${[...parts].join(', ')}${values.label ? ` (${values.label})` : ''}`, command: `npx tsx bench/books.ts ${process.argv.slice(2).join(' ')}`.trim(), startedAt, body });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
