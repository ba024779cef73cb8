/**
 * What each middleware of the real chain costs, in µs of server CPU per request: the real app
 * (bench/lib/middleware-server.ts) runs once whole and once with each middleware replaced by a
 * pass-through, all on the same seeded SQLite file, and every variant is loaded in the same rounds
 * (the order rotates per round). A middleware's cost is the whole app's CPU per request minus that of
 * the app without it. Operations: one book, a list page, and a PATCH whose 1 KB JSON body is parsed and
 * then refused by validation (422, nothing written) for the body parser's cost.
 * Run: npm run bench:middleware -- [--books 10000] [--rounds 3] [--seconds 5] [--connections 50] [--no-write]
 */
import { rm } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort, startChildServer, type ChildServer } from './lib/child-server.js';
import { runLoad } from './lib/load.js';
import { MIDDLEWARES } from './lib/middleware-server.js';
import { cpuSnapshot, cpuUsage } from './lib/proc-cpu.js';
import { waitForQuiet } from './lib/quiet.js';
import { appendResults, markdownTable } from './lib/results.js';
import { generatedBook } from './lib/seed-books.js';
import { seededDataDir } from './lib/seeded-store-cache.js';
import { bearer, registerUser } from './lib/stacks-client.js';
import { fmt } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    books: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    'no-write': { type: 'boolean', default: false },
  },
});
const S = { books: Number(values.books), rounds: Number(values.rounds), seconds: Number(values.seconds), connections: Number(values.connections) };
const log = (msg: string) => process.stderr.write(`[bench:middleware ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const SERVER = fileURLToPath(new URL('./lib/middleware-server.ts', import.meta.url));
const VARIANTS = ['none', ...MIDDLEWARES] as const;

interface Operation { readonly name: string; readonly path: string; readonly method?: string; readonly body?: string; readonly status: number }

function operations(books: number): Operation[] {
  const id = generatedBook(Math.floor(books / 2), { id: '', username: '' }).id;
  const description = 'x'.repeat(1000);
  return [
    { name: 'one book', path: `/api/books/${id}`, status: 200 },
    { name: 'page 1 by title', path: '/api/books?sort=title', status: 200 },
    { name: 'PATCH, 1 KB JSON body (422)', path: `/api/books/${id}`, method: 'PATCH', body: JSON.stringify({ title: '', description }), status: 422 },
  ];
}

async function start(variant: string, dataDir: string, secret: string): Promise<ChildServer> {
  const port = await freePort();
  return startChildServer({
    command: process.execPath,
    args: ['--import', 'tsx', SERVER],
    env: { PATH: process.env.PATH, NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir, JWT_SECRET: secret, BCRYPT_COST: '4',
      LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '1000000', REGISTER_LIMIT_PER_HOUR: '1000000', BENCH_PASS_THROUGH: variant },
    port,
    readyPath: '/readyz',
    readyTimeoutMs: 120_000,
  });
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const loadBefore = await waitForQuiet({ log, maxWaitMs: 60_000 });
  const dataDir = await seededDataDir(S.books, log);
  const secret = 'bench-secret-0123456789-0123456789-0123456789';
  const servers = new Map<string, ChildServer>();
  try {
    for (const variant of VARIANTS) servers.set(variant, await start(variant, dataDir, secret));
    const { token } = await registerUser(servers.get('none')!.url, 'bench');
    const ops = operations(S.books);
    // cpu[op][variant]: CPU ms and requests summed over the rounds.
    const totals = new Map<string, { cpuMs: number; requests: number }>();
    for (const op of ops) {
      for (const [variant, server] of servers) {
        const res = await fetch(`${server.url}${op.path}`, { method: op.method ?? 'GET', headers: { ...bearer(token), 'content-type': 'application/json' }, body: op.body });
        await res.arrayBuffer();
        if (res.status !== op.status) throw new Error(`${op.name} on '${variant}': ${res.status}, expected ${op.status}`);
        await runLoad({ url: `${server.url}${op.path}`, method: op.method, body: op.body, headers: { ...bearer(token), 'content-type': 'application/json' }, connections: S.connections, durationSec: 1 });
      }
      for (let r = 0; r < S.rounds; r++) {
        const order = [...VARIANTS.slice(r % VARIANTS.length), ...VARIANTS.slice(0, r % VARIANTS.length)];
        for (const variant of order) {
          const server = servers.get(variant)!;
          const before = await cpuSnapshot(server.pid);
          const result = await runLoad({ url: `${server.url}${op.path}`, method: op.method, body: op.body, headers: { ...bearer(token), 'content-type': 'application/json' }, connections: S.connections, durationSec: S.seconds });
          const cpu = cpuUsage(before, await cpuSnapshot(server.pid));
          const key = `${op.name}|${variant}`;
          const t = totals.get(key) ?? { cpuMs: 0, requests: 0 };
          totals.set(key, { cpuMs: t.cpuMs + cpu.mainThreadMs + cpu.otherThreadsMs, requests: t.requests + result.total });
        }
        log(`${op.name}: round ${r + 1} of ${S.rounds} (load ${loadavg()[0]!.toFixed(1)})`);
      }
    }
    const usPerRequest = (op: Operation, variant: string) => {
      const t = totals.get(`${op.name}|${variant}`)!;
      return (t.cpuMs * 1000) / t.requests;
    };
    const rows = [
      ['whole chain (CPU µs per request)', ...ops.map((op) => fmt(usPerRequest(op, 'none'), 0))],
      ...MIDDLEWARES.map((mw) => [mw, ...ops.map((op) => (mw === 'body parsing' && !op.body ? '—' : fmt(usPerRequest(op, 'none') - usPerRequest(op, mw), 0)))]),
    ];
    const body = [
      `${S.books.toLocaleString('en-US')} books (SQLite). Each variant is the real app with one middleware replaced by a pass-through (bench/lib/middleware-server.ts),`
        + ` all variants loaded in the same ${S.rounds} rounds × ${S.seconds} s at ${S.connections} connections, order rotating per round; CPU is the server`
        + ' process\'s (all threads, /proc, 10 ms resolution). A cost is whole-chain CPU per request minus that without the middleware; near 0 within noise.',
      `Load average (1 min) before ${loadBefore.toFixed(2)}, after ${loadavg()[0]!.toFixed(2)}.`,
      '',
      markdownTable(['middleware (µs per request)', ...ops.map((op) => op.name)], rows),
    ].join('\n');
    process.stdout.write(`${body}\n`);
    if (!values['no-write']) await appendResults({ title: 'Cost of each middleware', command: `npm run bench:middleware -- ${process.argv.slice(2).join(' ')}`.trim(), startedAt, body });
  } finally {
    for (const server of servers.values()) await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
