/**
 * Reading progress: PUT and GET /api/books/{id}/progress, and KOReader's PUT /kosync/syncs/progress and
 * GET /kosync/syncs/progress/{digest} (API key, digest lookup), on 100,000 books seeded into SQLite, paced
 * (open loop, evenly spaced, at most 50 in flight = 50 connections), then closed-loop at 50 connections
 * (autocannon) for the ceiling; GET /healthz in the same run as the baseline. Target: p99 < 10 ms.
 * Run: npx tsx bench/progress.ts [--books 100000] [--rate 400] [--seconds 10] [--label text] [--no-write]
 */
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadSqliteDriver } from '../src/adapters/sqlite/sqlite-driver.js';
import { runLoad } from './lib/load.js';
import { runPaced, type PacedRequest } from './lib/paced.js';
import { appendResults, markdownTable } from './lib/results.js';
import { generatedBook } from './lib/seed-books.js';
import { seededDataDir } from './lib/seeded-store-cache.js';
import { seededRandom } from './lib/seeded-random.js';
import { bearer, registerUser } from './lib/stacks-client.js';
import { buildStacks } from './lib/stacks-server.js';
import { startStacksOn } from './lib/source-stacks.js';
import { fmt } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    books: { type: 'string', default: '100000' },
    rate: { type: 'string', default: '400' },
    seconds: { type: 'string', default: '10' },
    label: { type: 'string', default: '' },
    'no-write': { type: 'boolean', default: false },
  },
});
const CONNECTIONS = 50;
const TARGET_P99_MS = 10;
const log = (msg: string) => process.stderr.write(`[bench:progress ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const secret = 'bench-secret-0123456789-0123456789-0123456789';
const md5 = (text: string) => createHash('md5').update(text).digest('hex');

/** KOReader's headers for the reader's new API key; the sampled books get digests, as upload and the backfill record them. */
async function kosyncSetUp(url: string, dataDir: string, auth: Record<string, string>, bookIds: readonly string[]): Promise<Record<string, string>> {
  const key = ((await (await fetch(`${url}/api/auth/keys`, { method: 'POST', headers: auth, body: JSON.stringify({ name: 'bench' }) })).json()) as { key: string }).key;
  const Sqlite = loadSqliteDriver();
  const db = new Sqlite(join(dataDir, 'stacks.db'));
  const insert = db.prepare('INSERT OR REPLACE INTO book_digests (book_id, partial_md5, file_name_md5) VALUES (?, ?, ?)');
  db.transaction(() => bookIds.forEach((id) => insert.run(id, md5(`partial:${id}`), md5(`name:${id}`))))();
  db.close();
  return { accept: 'application/vnd.koreader.v1+json', 'content-type': 'application/json', 'x-auth-user': 'reader', 'x-auth-key': md5(key) };
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const count = Number(values.books);
  const rate = Number(values.rate);
  const durationMs = Number(values.seconds) * 1000;
  log('building dist/');
  await buildStacks();
  const dataDir = await seededDataDir(count, log);
  const server = await startStacksOn({ dataDir, jwtSecret: secret, source: 'dist' });
  try {
    const { token } = await registerUser(server.url, 'reader');
    const auth = { ...bearer(token), 'content-type': 'application/json' };
    const owner = { id: 'seed-owner', username: 'seeder' };
    const rnd = seededRandom(42);
    // Books spread over the whole library, the same sequence every run.
    const bookIds = Array.from({ length: 2_000 }, () => generatedBook(rnd.int(0, count - 1), owner).id);
    const progressUrl = (i: number) => `${server.url}/api/books/${bookIds[i % bookIds.length]}/progress`;
    const put = (i: number): PacedRequest => ({
      url: progressUrl(i), method: 'PUT', headers: auth,
      body: JSON.stringify({ percentage: ((i % 99) + 1) / 100, locator: `/body/DocFragment[${i % 40}]/body/p[${i % 200}]/text().${i % 50}`, device: 'bench', device_id: 'bench-1' }),
    });
    const get = (i: number): PacedRequest => ({ url: progressUrl(i), headers: auth });
    const health = (): PacedRequest => ({ url: `${server.url}/healthz` });
    const koreader = await kosyncSetUp(server.url, dataDir, auth, bookIds);
    const digestOf = (i: number) => md5(`partial:${bookIds[i % bookIds.length]}`);
    const kosyncPut = (i: number): PacedRequest => ({
      url: `${server.url}/kosync/syncs/progress`, method: 'PUT', headers: koreader,
      body: JSON.stringify({ document: digestOf(i), progress: `/body/DocFragment[${i % 40}]/body/p[${i % 200}]/text().0`, percentage: ((i % 99) + 1) / 100, device: 'bench', device_id: 'bench-2' }),
    });
    const kosyncGet = (i: number): PacedRequest => ({ url: `${server.url}/kosync/syncs/progress/${digestOf(i)}`, headers: koreader });
    const paced = async (name: string, next: (i: number) => PacedRequest) => {
      await runPaced({ rate, durationMs: 2_000, next, maxInFlight: CONNECTIONS });
      const r = await runPaced({ rate, durationMs, next, maxInFlight: CONNECTIONS });
      log(`${name}: p50 ${fmt(r.latency.p50)} p99 ${fmt(r.latency.p99)} ms, ${fmt(r.achievedRate, 0)} req/s`);
      const failed = r.errors + r.skipped + Object.entries(r.statusCodes).filter(([s]) => !s.startsWith('2')).reduce((n, [, c]) => n + c, 0);
      return [name, r.sent, fmt(r.achievedRate, 0), fmt(r.latency.p50), fmt(r.latency.p99), fmt(r.latency.max), failed];
    };
    const rows = [
      await paced('`GET /healthz` (baseline)', health),
      await paced('`PUT /api/books/{id}/progress`', put),
      await paced('`GET /api/books/{id}/progress`', get),
      await paced('`PUT /kosync/syncs/progress`', kosyncPut),
      await paced('`GET /kosync/syncs/progress/{digest}`', kosyncGet),
    ];
    const ceiling = async (name: string, method: string, body?: string) => {
      const r = await runLoad({ url: progressUrl(0), method, headers: auth, connections: CONNECTIONS, durationSec: 5, warmupSec: 1, ...(body ? { body } : {}) });
      log(`${name}: ${fmt(r.requestsPerSec, 0)} req/s, p99 ${fmt(r.latency.p99)} ms`);
      return [name, r.total, fmt(r.requestsPerSec, 0), fmt(r.latency.p50), fmt(r.latency.p99), fmt(r.latency.max), r.errors + r.non2xx];
    };
    const closed = [
      await ceiling('PUT, closed loop', 'PUT', put(0).body),
      await ceiling('GET, closed loop', 'GET'),
    ];
    const p99 = (row: (string | number)[]) => row[4];
    const headers = ['request', 'n', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'failed'];
    const body = [
      `### Reading progress on ${count.toLocaleString('en-US')} books (SQLite, Stacks from dist/)`, '',
      `Paced: ${rate} req/s for ${values.seconds} s after 2 s of warm-up, at most ${CONNECTIONS} in flight (${CONNECTIONS} keep-alive connections), one reader over 2,000 books spread across the library; latency from each request's scheduled start.`, '',
      markdownTable(headers, rows), '',
      `Closed loop (autocannon, ${CONNECTIONS} connections, 5 s after 1 s of warm-up): the ceiling; p99 here is queueing at saturation.`, '',
      markdownTable(headers, closed), '',
      `Target p99 < ${TARGET_P99_MS} ms at ${CONNECTIONS} connections: PUT ${p99(rows[1]!)} ms, GET ${p99(rows[2]!)} ms; kosync PUT ${p99(rows[3]!)} ms, GET ${p99(rows[4]!)} ms (paced).`,
    ].join('\n');
    process.stdout.write(`${body}\n`);
    if (!values['no-write']) {
      await appendResults({ title: `Reading progress${values.label ? ` (${values.label})` : ''}`, command: `npx tsx bench/progress.ts ${process.argv.slice(2).join(' ')}`.trim(), startedAt, body });
    }
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
