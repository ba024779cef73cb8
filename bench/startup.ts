/**
 * Start-up: process start to the first GET /readyz 200 (polled every 10 ms) on an empty store and on
 * 250,000 books, and idle RSS 10 s later, of the server as `npm start` runs it (the bundle,
 * dist/bundle/main.js), and on an empty store of the unbundled tsc output (dist/bootstrap/main.js) for
 * comparison; beside the Express hello-world's start to its first 200 and the bare server's
 * (bench/lib/baselines/bare-stacks.mjs: node:http + better-sqlite3 opening and migrating an empty store)
 * and the packages' floor (bench/lib/baselines/packages-floor.mjs, bundled like Stacks: Express, zod,
 * jsonwebtoken, pino, tsyringe and the migrated store, none of Stacks' own code beyond its migrations).
 * Run: npx tsx bench/startup.ts [--books 250000] [--runs 5] [--no-write] [--only empty]
 * (--only empty: just the empty-store rows, Stacks' and the baselines', no seeded store, never written to RESULTS.md)
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { freePort } from './lib/child-server.js';
import { mib, rssBytes } from './lib/proc-stats.js';
import { appendResults, markdownTable } from './lib/results.js';
import { buildStacks, REPO_ROOT, START_ENTRY } from './lib/stacks-server.js';
import { seededDataDir } from './lib/seeded-store-cache.js';
import { fmt, summarize } from './lib/stats.js';

const { values } = parseArgs({
  options: { books: { type: 'string', default: '250000' }, runs: { type: 'string', default: '5' }, 'no-write': { type: 'boolean', default: false }, only: { type: 'string' } },
});
if (values.only !== undefined && values.only !== 'empty') throw new Error('--only takes "empty"');
const emptyOnly = values.only === 'empty';
/** Where the packages' floor is bundled (scripts/bundle.mjs --entry). */
const FLOOR_DIR = join(REPO_ROOT, 'bench/out/packages-floor');
const log = (msg: string) => process.stderr.write(`[bench:startup ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

/** Spawns `args`, polls `path` every 10 ms; returns ms to the first 200 and the RSS after `idleMs`. */
async function startOnce(args: string[], env: Record<string, string>, path: string, idleMs: number): Promise<{ readyMs: number; idleRss: number }> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { cwd: REPO_ROOT, env: { PATH: process.env.PATH, NODE_ENV: 'production', HOST: '127.0.0.1', PORT: String(port), ...env }, stdio: 'ignore' });
  try {
    let readyMs = Number.NaN;
    while (performance.now() - t0 < 60_000) {
      const status = await fetch(`http://127.0.0.1:${port}${path}`).then((r) => r.status, () => 0);
      if (status === 200) {
        readyMs = performance.now() - t0;
        break;
      }
      if (child.exitCode !== null) throw new Error(`exited with ${child.exitCode}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    await new Promise((r) => setTimeout(r, idleMs));
    return { readyMs, idleRss: await rssBytes(child.pid!) };
  } finally {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }
}

async function main(): Promise<void> {
  const startedAt = new Date();
  log('building dist/');
  await buildStacks();
  await promisify(execFile)(process.execPath, ['scripts/bundle.mjs', '--entry', fileURLToPath(new URL('./lib/baselines/packages-floor.mjs', import.meta.url)), '--outdir', FLOOR_DIR], { cwd: REPO_ROOT });
  const runs = Number(values.runs);
  const count = Number(values.books);
  const secret = 'bench-secret-0123456789-0123456789-0123456789';
  const stacksArgs = [START_ENTRY];
  // The seeded store is copied (and its digests and change-feed rows written) only when its own case
  // comes, last: the writeback of that copy slowed every empty-store start measured after it (fsyncs).
  let full = '';
  const seeded = async () => (full ||= await seededDataDir(count, log));
  const emptyStore = (workers: string) => async () => ({ DATA_DIR: await mkdtemp(join(tmpdir(), 'stacks-empty-')), JWT_SECRET: secret, LOG_LEVEL: 'warn', WORKERS: workers });
  const rows: (string | number)[][] = [];
  type Case = [name: string, args: string[], env: () => Promise<Record<string, string>>, path: string];
  const all: Case[] = [
    ['Express hello-world (baseline: `node` + Express start)', [fileURLToPath(new URL('./lib/baselines/express-hello.mjs', import.meta.url))], async () => ({}), '/hello'],
    ['the packages\' floor, bundled: Express, zod, jsonwebtoken, pino, tsyringe, better-sqlite3 + migrations, empty store (baseline)',
      [join(FLOOR_DIR, 'main.js')], async () => ({ DATA_DIR: await mkdtemp(join(tmpdir(), 'stacks-floor-')) }), '/readyz'],
    ['bare node:http + better-sqlite3, empty store (baseline)', [fileURLToPath(new URL('./lib/baselines/bare-stacks.mjs', import.meta.url))], async () => ({ DATA_DIR: await mkdtemp(join(tmpdir(), 'stacks-bare-')) }), '/readyz'],
    ['Stacks, empty store', stacksArgs, emptyStore('1'), '/readyz'],
    ['Stacks, empty store, WORKERS=2 (first answer from either worker)', stacksArgs, emptyStore('2'), '/readyz'],
    ['Stacks unbundled (tsc output, dist/bootstrap/main.js), empty store', ['dist/bootstrap/main.js'], emptyStore('1'), '/readyz'],
    [`Stacks, ${count.toLocaleString('en-US')} books`, stacksArgs, async () => ({ DATA_DIR: await seeded(), JWT_SECRET: secret, LOG_LEVEL: 'warn', WORKERS: '1' }), '/readyz'],
  ];
  const cases = all.filter(([name]) => !emptyOnly || name.includes('empty store'));
  try {
    for (const [name, args, envFor, path] of cases) {
      const ready: number[] = [], rss: number[] = [];
      for (let i = 0; i < runs; i++) {
        const env = await envFor();
        const r = await startOnce(args, env, path, i === runs - 1 ? 10_000 : 500);
        ready.push(r.readyMs);
        rss.push(r.idleRss);
        if (env.DATA_DIR && env.DATA_DIR !== full) await rm(env.DATA_DIR, { recursive: true, force: true });
      }
      const s = summarize(ready);
      log(`${name}: p50 ${fmt(s.p50, 0)} ms`);
      rows.push([name, runs, fmt(s.p50, 0), fmt(s.max, 0), mib(rss[rss.length - 1]!)]);
    }
  } finally {
    if (full) await rm(full, { recursive: true, force: true });
  }
  const body = [
    `Process spawn to the first 200 (polled every 10 ms), ${runs} cold starts each, Stacks on SQLite as \`npm start\` runs it (${START_ENTRY}) unless said; RSS read from /proc 10 s after the last start became ready.`,
    '',
    markdownTable(['process', 'starts', 'p50 ms', 'max ms', 'idle RSS MiB'], rows),
    '',
    'Targets: ≤ 200 ms empty (issue 26), < 3 s with 250,000 books, idle RSS < 120 MB.',
  ].join('\n');
  process.stdout.write(`${body}\n`);
  if (!values['no-write'] && !emptyOnly) await appendResults({ title: 'Start-up time and idle memory', command: `npx tsx bench/startup.ts ${process.argv.slice(2).join(' ')}`.trim(), startedAt, body });
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
