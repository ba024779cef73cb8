/**
 * Where Stacks' CPU per request goes, beside the bare server (bench/lib/baselines/bare-stacks.mjs): for each
 * operation, Stacks (from dist/) and the bare server each run under `node --cpu-prof` on a copy of the same
 * seeded SQLite file, take `--seconds` of load at 50 connections, and stop; the profiles are summarized
 * (self time by package/file and by function, as bench/lib/cpu-profile-summary.ts) and kept in bench/out/.
 * Profiles only: the figures to record are bench:bare's.
 * Run: npx tsx bench/profile-overhead.ts [--books 10000] [--seconds 10] [--connections 50] [--only name,…] [--top 30]
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freePort, startChildServer, type ChildServer } from './lib/child-server.js';
import { summarizeProfile } from './lib/cpu-profile-summary.js';
import { runLoad } from './lib/load.js';
import { generatedBook } from './lib/seed-books.js';
import { seededDataDir } from './lib/seeded-store-cache.js';
import { startStacksOn } from './lib/source-stacks.js';
import { bearer, registerUser } from './lib/stacks-client.js';
import { buildStacks } from './lib/stacks-server.js';
import { fmt } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    books: { type: 'string', default: '10000' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    only: { type: 'string', default: '' },
    top: { type: 'string', default: '30' },
    'no-build': { type: 'boolean', default: false },
  },
});
const books = Number(values.books);
const log = (msg: string) => process.stderr.write(`[profile ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const BARE = fileURLToPath(new URL('./lib/baselines/bare-stacks.mjs', import.meta.url));
const OUT = fileURLToPath(new URL('./out/profiles/', import.meta.url));

const OPERATIONS = [
  { name: 'page 1 by title', path: '/api/books?sort=title' },
  { name: 'q=harbour', path: '/api/books?q=harbour' },
  { name: 'q=ki', path: '/api/books?q=ki' },
  { name: 'one book', path: `/api/books/${generatedBook(Math.floor(books / 2), { id: '', username: '' }).id}` },
];

/** Starts one server with --cpu-prof into `dir`, loads `path`, stops it, and returns the summary of its profile. */
async function profiled(kind: 'stacks' | 'bare', path: string, dir: string): Promise<string> {
  const dataDir = await seededDataDir(books, log);
  const nodeFlags = ['--cpu-prof', `--cpu-prof-dir=${dir}`];
  let server: ChildServer;
  let headers: Record<string, string> = {};
  if (kind === 'stacks') {
    server = await startStacksOn({ dataDir, jwtSecret: 'bench-secret-0123456789-0123456789-0123456789', source: 'dist', nodeFlags });
    headers = bearer((await registerUser(server.url, 'bench')).token);
  } else {
    const port = await freePort();
    server = await startChildServer({ command: process.execPath, args: [...nodeFlags, BARE], env: { PATH: process.env.PATH, NODE_ENV: 'production', DATA_DIR: dataDir, PORT: String(port) }, port, readyPath: '/readyz' });
  }
  try {
    await runLoad({ url: `${server.url}${path}`, headers, connections: Number(values.connections), durationSec: 2 });
    const result = await runLoad({ url: `${server.url}${path}`, headers, connections: Number(values.connections), durationSec: Number(values.seconds) });
    log(`${kind} ${path}: ${fmt(result.requestsPerSec, 0)} req/s, ${result.total} requests`);
  } finally {
    await server.stop(30_000);
    await rm(dataDir, { recursive: true, force: true });
  }
  // The main thread's profile (worker threads, e.g. Piscina's, write their own: `.<thread id>.`).
  const file = (await readdir(dir)).find((f) => /\.0\.\d+\.cpuprofile$/.test(f));
  if (!file) throw new Error(`no profile written in ${dir}`);
  const summary = summarizeProfile(JSON.parse(await readFile(join(dir, file), 'utf8')));
  const busy = summary.totalMs - (summary.byOwner.find(([o]) => o === '(idle)')?.[1] ?? 0);
  const line = ([name, ms]: [string, number]) => `${ms.toFixed(0).padStart(8)} ms ${((ms / busy) * 100).toFixed(1).padStart(5)}%  ${name}`;
  const top = Number(values.top);
  return [`## ${kind} ${path}: busy ${busy.toFixed(0)} ms of ${summary.totalMs.toFixed(0)} ms (${join(dir, file)})`, '', 'by package/file:',
    ...summary.byOwner.slice(0, top).map(line), '', 'by function:', ...summary.byFunction.slice(0, top).map(line), ''].join('\n');
}

async function main(): Promise<void> {
  if (!values['no-build']) {
    log('building dist/');
    const diagnostics = await buildStacks();
    if (diagnostics) log(`tsc reported:\n${diagnostics}`);
  }
  const only = values.only ? values.only.split(',') : null;
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  for (const op of OPERATIONS.filter((o) => !only || only.some((name) => o.name.includes(name)))) {
    for (const kind of ['stacks', 'bare'] as const) {
      const dir = join(OUT, `${stamp}-${op.name.replace(/\W+/g, '-')}-${kind}`);
      process.stdout.write(`${await profiled(kind, op.path, dir)}\n`);
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
