/**
 * Read throughput with WORKERS=2 against one process, on the same seeded SQLite file, in the same run:
 * Stacks from dist/ started twice (WORKERS=1 and WORKERS=2), each operation loaded on both in
 * alternating rounds (which goes first alternates too), at 50 connections. Issue 26's target: on 2
 * cores, 2 workers ≥ 1.8× one. The CPU columns sum the primary and its workers (all threads, /proc).
 * The load comes from autocannon in this process, or with `--generator wrk` from wrk (C, one thread), which
 * leaves the server more of the same two cores: autocannon's own CPU per request is about that of a cheap read.
 * Run: npm run bench:workers -- [--books 10000] [--workers 2] [--rounds 3] [--seconds 10] [--connections 50] [--generator autocannon|wrk] [--ops reads|dense] [--no-write]
 */
import { readFile, rm } from 'node:fs/promises';
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { ChildServer } from './lib/child-server.js';
import { runLoad } from './lib/load.js';
import { cpuSnapshot, cpuUsage, type CpuSnapshot } from './lib/proc-cpu.js';
import { waitForQuiet } from './lib/quiet.js';
import { appendResults, markdownTable } from './lib/results.js';
import { generatedBook } from './lib/seed-books.js';
import { seededDataDir } from './lib/seeded-store-cache.js';
import { startStacksOn } from './lib/source-stacks.js';
import { bearer, registerUser } from './lib/stacks-client.js';
import { buildStacks } from './lib/stacks-server.js';
import { fmt, ratio } from './lib/stats.js';
import { runWrk, type ThroughputResult } from './lib/wrk-load.js';

const { values } = parseArgs({
  options: {
    books: { type: 'string', default: '10000' },
    workers: { type: 'string', default: '2' },
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    generator: { type: 'string', default: 'autocannon' },
    ops: { type: 'string', default: 'reads' },
    'no-write': { type: 'boolean', default: false },
  },
});
const S = { books: Number(values.books), workers: Number(values.workers), rounds: Number(values.rounds), seconds: Number(values.seconds), connections: Number(values.connections) };
if (values.generator !== 'autocannon' && values.generator !== 'wrk') throw new Error(`--generator autocannon or wrk, not ${values.generator}`);
const load = (url: string, headers: Record<string, string>, durationSec: number): Promise<ThroughputResult> =>
  values.generator === 'wrk' ? runWrk({ url, headers, connections: S.connections, durationSec }) : runLoad({ url, headers, connections: S.connections, durationSec });
const log = (msg: string) => process.stderr.write(`[bench:workers ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

const OPERATIONS = [
  { name: 'page 1 by title', path: () => '/api/books?sort=title' },
  { name: 'one book', path: (books: number) => `/api/books/${generatedBook(Math.floor(books / 2), { id: '', username: '' }).id}` },
  { name: '`q=harbour`', path: () => '/api/books?q=harbour' },
];
// Issue 26's dense shapes (`--ops dense`): a 2-letter search and a broad tag sorted by title.
const DENSE = [
  { name: '`q=ki` (2 letters)', path: () => '/api/books?q=ki' },
  { name: '`tag=history&sort=-title`', path: () => '/api/books?tag=history&sort=-title' },
];

/** The process and its children (the workers), from /proc/<pid>/task/<pid>/children. */
async function tree(pid: number): Promise<number[]> {
  const children = (await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '')).trim().split(/\s+/).filter(Boolean).map(Number);
  return [pid, ...(await Promise.all(children.map(tree))).flat()];
}

async function treeCpuMs(pids: readonly number[], work: () => Promise<ThroughputResult>): Promise<{ result: ThroughputResult; cpuMs: number }> {
  const before: CpuSnapshot[] = await Promise.all(pids.map(cpuSnapshot));
  const result = await work();
  const after = await Promise.all(pids.map(cpuSnapshot));
  const cpuMs = before.reduce((sum, b, i) => {
    const u = cpuUsage(b, after[i]!);
    return sum + u.mainThreadMs + u.otherThreadsMs;
  }, 0);
  return { result, cpuMs };
}

interface Side { readonly label: string; readonly server: ChildServer; readonly pids: number[]; rounds: ThroughputResult[]; cpuMs: number; requests: number }

async function main(): Promise<void> {
  const startedAt = new Date();
  log('building dist/');
  await buildStacks();
  const loadBefore = await waitForQuiet({ log, maxWaitMs: 60_000 });
  const dataDir = await seededDataDir(S.books, log);
  const jwtSecret = 'bench-secret-0123456789-0123456789-0123456789';
  const servers: ChildServer[] = [];
  try {
    const one = await startStacksOn({ dataDir, jwtSecret, source: 'dist', env: { WORKERS: '1' } });
    servers.push(one);
    const many = await startStacksOn({ dataDir, jwtSecret, source: 'dist', env: { WORKERS: String(S.workers) } });
    servers.push(many);
    const { token } = await registerUser(one.url, 'bench');
    const rows: (string | number)[][] = [];
    for (const op of values.ops === 'dense' ? DENSE : OPERATIONS) {
      const path = op.path(S.books);
      const sides: Side[] = [
        { label: '1', server: one, pids: await tree(one.pid), rounds: [], cpuMs: 0, requests: 0 },
        { label: String(S.workers), server: many, pids: await tree(many.pid), rounds: [], cpuMs: 0, requests: 0 },
      ];
      for (const side of sides) await load(`${side.server.url}${path}`, bearer(token), 2);
      for (let r = 0; r < S.rounds; r++) {
        for (const side of r % 2 ? [...sides].reverse() : sides) {
          const { result, cpuMs } = await treeCpuMs(side.pids, () => load(`${side.server.url}${path}`, bearer(token), S.seconds));
          if (result.non2xx + result.errors > 0) throw new Error(`${op.name} with WORKERS=${side.label}: ${result.non2xx} non-2xx, ${result.errors} errors`);
          side.rounds.push(result);
          side.cpuMs += cpuMs;
          side.requests += result.total;
        }
        log(`${op.name}, round ${r + 1}: ${sides.map((s) => `WORKERS=${s.label} ${fmt(s.rounds.at(-1)!.requestsPerSec, 0)} req/s, p99 ${fmt(s.rounds.at(-1)!.latency.p99)} ms`).join(', ')} (load ${loadavg()[0]!.toFixed(1)})`);
      }
      // The median round by throughput, and its latency.
      const median = (side: Side) => [...side.rounds].sort((x, y) => x.requestsPerSec - y.requestsPerSec)[Math.floor((side.rounds.length - 1) / 2)]!;
      const [a, b] = (sides as [Side, Side]).map(median) as [ThroughputResult, ThroughputResult];
      const [sa, sb] = sides as [Side, Side];
      rows.push([op.name, `\`${path}\``, fmt(a.requestsPerSec, 0), fmt(b.requestsPerSec, 0), `${fmt(ratio(b.requestsPerSec, a.requestsPerSec))}×`,
        `${fmt(a.latency.p50)} / ${fmt(a.latency.p99)}`, `${fmt(b.latency.p50)} / ${fmt(b.latency.p99)}`,
        fmt((sa.cpuMs * 1000) / sa.requests, 0), fmt((sb.cpuMs * 1000) / sb.requests, 0)]);
    }
    const body = [
      `${S.books.toLocaleString('en-US')} books (SQLite), Stacks from dist/ with WORKERS=1 and WORKERS=${S.workers} on the same file, ${availableParallelism()} CPUs;`
        + ` ${S.rounds} rounds × ${S.seconds} s at ${S.connections} connections per side, alternating; req/s and latency are the median round's; CPU sums the primary and workers.`
        + ` Load generator: ${values.generator === 'wrk' ? 'wrk (one thread)' : 'autocannon, in the bench process'}, on the same 2 cores.`,
      `Load average (1 min) before ${loadBefore.toFixed(2)}, after ${loadavg()[0]!.toFixed(2)}. Targets (issue 26): ≥ 1.8× with 2 workers on 2 cores; the dense shapes ≤ 1 ms of CPU per request and p99 < 50 ms at 250,000 books.`,
      '',
      markdownTable(['operation', 'request', 'WORKERS=1 req/s', `WORKERS=${S.workers} req/s`, 'ratio', 'p50 / p99 ms (1)', `p50 / p99 ms (${S.workers})`, 'CPU µs/req (1)', `CPU µs/req (${S.workers})`], rows),
    ].join('\n');
    process.stdout.write(`${body}\n`);
    if (!values['no-write']) await appendResults({ title: 'Read throughput with several workers', command: `npm run bench:workers -- ${process.argv.slice(2).join(' ')}`.trim(), startedAt, body });
  } finally {
    for (const server of servers.reverse()) await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
