/**
 * Stacks against the bare server (bench/lib/baselines/bare-stacks.mjs: node:http + better-sqlite3 running
 * Stacks' own SQL on the same SQLite file, with Stacks' response bodies, and no authentication, validation
 * or logging), for each operation of issue 26's table, on libraries of N seeded books. Bodies are first
 * checked byte-identical; then each operation runs at 50 connections, rounds rotating between the three
 * servers (Stacks, the bare server, and the same bare handlers as Express 5 routes with no middleware: the
 * floor Express itself sets), and the table gives the median req/s, the ratios to the bare server, latency
 * pooled over the rounds, and CPU per request of each server process (all its threads,
 * from /proc, 10 ms resolution: use rounds of several seconds). The seeded books are given digest rows, as after
 * the KOReader digest backfill, so that walk does not run beside the load (the generated books have no files).
 * Run: npm run bench:bare -- [--books 10000,100000,250000] [--rounds 3] [--seconds 10] [--warmup 3]
 *        [--connections 50] [--only name,…] [--label text] [--no-write]
 */
import { rm } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort, startChildServer, type ChildServer } from './lib/child-server.js';
import { runLoad, type LoadResult } from './lib/load.js';
import { cpuSnapshot, cpuUsage } from './lib/proc-cpu.js';
import { waitForQuiet } from './lib/quiet.js';
import { appendResults, markdownTable } from './lib/results.js';
import { generatedBook } from './lib/seed-books.js';
import { seededDataDir } from './lib/seeded-store-cache.js';
import { startStacksOn } from './lib/source-stacks.js';
import { bearer, registerUser } from './lib/stacks-client.js';
import { buildStacks } from './lib/stacks-server.js';
import { fmt, ratio, summarize } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    books: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    only: { type: 'string', default: '' },
    label: { type: 'string', default: '' },
    'no-write': { type: 'boolean', default: false },
  },
});
const S = { rounds: Number(values.rounds), seconds: Number(values.seconds), warmup: Number(values.warmup), connections: Number(values.connections) };
const log = (msg: string) => process.stderr.write(`[bench:bare ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const BARE = fileURLToPath(new URL('./lib/baselines/bare-stacks.mjs', import.meta.url));

/** The operations of issue 26's table; `path` for a library of `books`. */
const OPERATIONS: readonly { name: string; path: (books: number) => string }[] = [
  { name: 'page 1 by title', path: () => '/api/books?sort=title' },
  { name: 'offset 5,000 by title', path: () => '/api/books?sort=title&page=251' },
  { name: '`q=harbour`', path: () => '/api/books?q=harbour' },
  { name: 'one book', path: (books) => `/api/books/${generatedBook(Math.floor(books / 2), { id: '', username: '' }).id}` },
  { name: '`q=ki` (2 letters)', path: () => '/api/books?q=ki' },
  { name: '`tag=history&sort=-title`', path: () => '/api/books?tag=history&sort=-title' },
];

interface Side { readonly server: ChildServer; readonly headers: Record<string, string>; readonly rounds: LoadResult[]; readonly cpuMs: number[] }

/** Fetches `path` from Stacks and each other side; throws unless all answer 200 with the same bytes. Returns the body's total (if a list). */
async function sameBody(stacks: Side, others: readonly Side[], path: string): Promise<string> {
  const fetched = await Promise.all([stacks, ...others].map(async (side) => {
    const res = await fetch(`${side.server.url}${path}`, { headers: side.headers });
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
  }));
  const a = fetched[0]!;
  for (const b of fetched.slice(1)) {
    if (a.status !== 200 || b.status !== 200) throw new Error(`${path}: Stacks ${a.status}, baseline ${b.status}`);
    if (!a.body.equals(b.body)) {
      const at = a.body.findIndex((byte, i) => byte !== b.body[i]);
      throw new Error(`${path}: bodies differ at byte ${at}: Stacks …${a.body.subarray(at, at + 80).toString()}… baseline …${b.body.subarray(at, at + 80).toString()}…`);
    }
  }
  const total = (JSON.parse(a.body.toString()) as { total?: number }).total;
  return total === undefined ? '1' : total.toLocaleString('en-US');
}

/** One measured round on one side: load, and the server's CPU time meanwhile. */
async function round(side: Side, path: string): Promise<void> {
  const before = await cpuSnapshot(side.server.pid);
  const result = await runLoad({ url: `${side.server.url}${path}`, headers: side.headers, connections: S.connections, durationSec: S.seconds });
  const cpu = cpuUsage(before, await cpuSnapshot(side.server.pid));
  side.rounds.push(result);
  side.cpuMs.push(cpu.mainThreadMs + cpu.otherThreadsMs);
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] as number;

function summary(side: Side) {
  const requests = side.rounds.reduce((n, r) => n + r.total, 0);
  const cpuMs = side.cpuMs.reduce((n, ms) => n + ms, 0);
  return {
    rps: median(side.rounds.map((r) => r.requestsPerSec)),
    latency: summarize(side.rounds.flatMap((r) => r.samples)),
    errors: side.rounds.reduce((n, r) => n + r.errors + r.timeouts + r.non2xx, 0),
    cpuUsPerRequest: requests > 0 ? (cpuMs * 1000) / requests : Number.NaN,
  };
}

async function library(books: number): Promise<string> {
  const dataDir = await seededDataDir(books, log);
  const stacks = await startStacksOn({ dataDir, jwtSecret: 'bench-secret-0123456789-0123456789-0123456789', source: 'dist', readyTimeoutMs: 300_000 });
  const port = await freePort();
  const servers: ChildServer[] = [stacks];
  try {
    const bareServer = await startChildServer({ command: process.execPath, args: [BARE], env: { PATH: process.env.PATH, NODE_ENV: 'production', DATA_DIR: dataDir, PORT: String(port) }, port, readyPath: '/readyz' });
    servers.push(bareServer);
    const expressPort = await freePort();
    const expressServer = await startChildServer({ command: process.execPath, args: [BARE], env: { PATH: process.env.PATH, NODE_ENV: 'production', DATA_DIR: dataDir, PORT: String(expressPort), EXPRESS: '1' }, port: expressPort, readyPath: '/readyz' });
    servers.push(expressServer);
    const { token } = await registerUser(stacks.url, 'bench');
    const rows: (string | number)[][] = [];
    const only = values.only ? values.only.split(',') : null;
    for (const op of OPERATIONS.filter((o) => !only || only.some((name) => o.name.includes(name)))) {
      const path = op.path(books);
      const side = (server: ChildServer, headers: Record<string, string>): Side => ({ server, headers, rounds: [], cpuMs: [] });
      const sides = { stacks: side(stacks, bearer(token)), bare: side(bareServer, {}), express: side(expressServer, {}) };
      const all = [sides.stacks, sides.bare, sides.express];
      const matches = await sameBody(sides.stacks, [sides.bare, sides.express], path);
      for (const each of all) await runLoad({ url: `${each.server.url}${path}`, headers: each.headers, connections: S.connections, durationSec: S.warmup });
      for (let r = 1; r <= S.rounds; r++) {
        // Each round starts with the next server, so none is always first or last.
        for (let i = 0; i < all.length; i++) await round(all[(r - 1 + i) % all.length]!, path);
        log(`${books} books, ${op.name}, round ${r}: Stacks ${fmt(sides.stacks.rounds.at(-1)!.requestsPerSec, 0)} req/s, bare ${fmt(sides.bare.rounds.at(-1)!.requestsPerSec, 0)}, `
          + `Express only ${fmt(sides.express.rounds.at(-1)!.requestsPerSec, 0)} (load ${loadavg()[0]!.toFixed(1)})`);
      }
      const [s, b, e] = [summary(sides.stacks), summary(sides.bare), summary(sides.express)];
      rows.push([op.name, `\`${path}\``, matches, fmt(s.rps, 0), fmt(b.rps, 0), fmt(e.rps, 0), `${fmt(ratio(s.rps, b.rps))}×`, `${fmt(ratio(e.rps, b.rps))}×`,
        `${fmt(s.latency.p50, 1)} / ${fmt(s.latency.p99, 1)}`, `${fmt(b.latency.p50, 1)} / ${fmt(b.latency.p99, 1)}`,
        fmt(s.cpuUsPerRequest, 0), fmt(b.cpuUsPerRequest, 0), fmt(e.cpuUsPerRequest, 0), fmt(s.cpuUsPerRequest - b.cpuUsPerRequest, 0),
        `${s.errors} / ${b.errors} / ${e.errors}`]);
    }
    return [`### ${books.toLocaleString('en-US')} books`, '',
      markdownTable(['operation', 'request', 'matches', 'Stacks req/s', 'bare req/s', 'Express-only req/s', 'Stacks / bare', 'Express-only / bare',
        'Stacks p50 / p99 ms', 'bare p50 / p99 ms', 'Stacks CPU µs/req', 'bare CPU µs/req', 'Express-only CPU µs/req', 'Stacks − bare µs',
        'errors Stacks / bare / Express-only'], rows)].join('\n');
  } finally {
    for (const server of servers.reverse()) await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const startedAt = new Date();
  log('building dist/');
  const diagnostics = await buildStacks();
  if (diagnostics) log(`tsc reported:\n${diagnostics}`);
  const loadBefore = await waitForQuiet({ log, maxWaitMs: 60_000 });
  const sections: string[] = [];
  for (const books of values.books.split(',').map(Number)) sections.push(await library(books));
  const body = [
    `Each operation: bodies checked byte-identical, ${S.warmup} s warm-up per server, then ${S.rounds} rounds × ${S.seconds} s at ${S.connections} connections`
      + ' per server, rotating (each round starts with the next server); req/s is the median round, latency pooled over the rounds,'
      + ' CPU per request is each server process\'s CPU time (all threads, /proc) over its requests. Stacks from dist/ (SQLite, bcrypt cost 4,'
      + ' rate limits raised), authenticated by a Bearer token; the bare server has no authentication, validation, logging or limits;'
      + ' "Express-only" is the bare server\'s handlers as Express 5 routes (one app, no middleware, no ETag): the floor Express sets.',
    `Load average (1 min) before ${loadBefore.toFixed(2)}, after ${loadavg()[0]!.toFixed(2)}.`,
    '',
    ...sections.flatMap((s) => [s, '']),
    'Targets (issue 26): dense shapes (`q=ki`, `tag=history&sort=-title`) ≤ 1 ms of CPU per request and p99 < 50 ms at 250,000 books.',
  ].join('\n');
  process.stdout.write(`${body}\n`);
  if (!values['no-write']) {
    await appendResults({ title: `Stacks against the bare server${values.label ? ` (${values.label})` : ''}`, command: `npm run bench:bare -- ${process.argv.slice(2).join(' ')}`.trim(), startedAt, body });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
