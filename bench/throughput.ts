/**
 * Authenticated GET /api/books (20 items) and GET /api/books/{id} beside an Express and a node:http
 * hello-world, 50 connections, alternating rounds; then 60 s of GET /api/books at a fixed rate.
 * Run: npx tsx bench/throughput.ts [--quick] [--no-write]
 */
import { loadavg } from 'node:os';
import { startBaseline, BASELINE_PATH } from './lib/baselines.js';
import type { ChildServer } from './lib/child-server.js';
import { runLoad, type LoadResult } from './lib/load.js';
import { waitForQuiet } from './lib/quiet.js';
import { appendResults, markdownTable } from './lib/results.js';
import { bearer, registerUser } from './lib/stacks-client.js';
import { buildStacks, startStacks } from './lib/stacks-server.js';
import { fmt, ratio, summarize } from './lib/stats.js';
import { ingestEpubs } from './lib/upload-books.js';

const quick = process.argv.includes('--quick');
const S = { connections: 50, warmupSec: quick ? 1 : 3, rounds: quick ? 1 : 3, roundSec: quick ? 3 : 6, fixedSec: quick ? 10 : 60 };
const log = (msg: string) => process.stderr.write(`[bench:throughput ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);

interface Target { name: string; url: string; headers: Record<string, string>; rounds: LoadResult[] }

const pooled = (t: Target) => {
  const rps = t.rounds.reduce((s, r) => s + r.requestsPerSec, 0) / t.rounds.length;
  const lat = summarize(t.rounds.flatMap((r) => r.samples));
  const errors = t.rounds.reduce((s, r) => s + r.errors + r.timeouts + r.non2xx, 0);
  return { rps, lat, errors };
};

async function main(): Promise<void> {
  const startedAt = new Date();
  const loadBefore = loadavg()[0]!;
  log('building dist/');
  await buildStacks();
  await waitForQuiet({ log, maxWaitMs: 60_000 });
  const servers: ChildServer[] = [];
  try {
    const express = await startBaseline('express');
    servers.push(express);
    const nodeHttp = await startBaseline('node-http');
    servers.push(nodeHttp);
    const stacks = await startStacks();
    servers.push({ ...stacks, stop: () => stacks.stopAndClean() });
    const { token } = await registerUser(stacks.url, 'reader0');
    const ingest = await ingestEpubs(stacks.url, token, 25);
    if (ingest.failures > 0) throw new Error(`${ingest.failures} uploads failed`);
    const auth = bearer(token);
    const targets: Target[] = [
      { name: 'Express 5 hello-world `GET /hello`', url: `${express.url}${BASELINE_PATH}`, headers: {}, rounds: [] },
      { name: 'node:http hello-world `GET /hello`', url: `${nodeHttp.url}${BASELINE_PATH}`, headers: {}, rounds: [] },
      { name: 'Stacks `GET /api/books` (20 items, Bearer)', url: `${stacks.url}/api/books`, headers: auth, rounds: [] },
      { name: 'Stacks `GET /api/books/{id}` (Bearer)', url: `${stacks.url}/api/books/${ingest.ids[0]}`, headers: auth, rounds: [] },
    ];
    const check = await fetch(targets[2]!.url, { headers: auth }).then((r) => r.json() as Promise<{ items: unknown[] }>);
    if (check.items.length !== 20) throw new Error(`list returned ${check.items.length} items`);
    for (const t of targets) await runLoad({ url: t.url, headers: t.headers, connections: S.connections, durationSec: S.warmupSec });
    for (let round = 1; round <= S.rounds; round++) {
      for (const t of targets) {
        log(`round ${round}: ${t.name} (load average ${loadavg()[0]!.toFixed(1)})`);
        t.rounds.push(await runLoad({ url: t.url, headers: t.headers, connections: S.connections, durationSec: S.roundSec }));
      }
    }
    const expressRps = pooled(targets[0]!).rps;
    const listRps = pooled(targets[2]!).rps;
    const rate = Math.max(50, Math.round((listRps * 0.5) / 10) * 10);
    log(`fixed rate: ${rate} req/s for ${S.fixedSec} s on GET /api/books`);
    const fixed = await runLoad({ url: targets[2]!.url, headers: auth, connections: S.connections, durationSec: S.fixedSec, overallRate: rate });
    const rows = targets.map((t) => {
      const p = pooled(t);
      return [t.name, fmt(p.rps, 0), ratio(p.rps, expressRps), fmt(p.lat.p50), fmt(p.lat.p99), fmt(p.lat.max), p.errors];
    });
    const fixedErrors = fixed.errors + fixed.timeouts + fixed.non2xx;
    const body = [
      `${S.connections} connections, ${S.rounds} alternating rounds × ${S.roundSec} s per target after ${S.warmupSec} s warm-up; Stacks from dist/ on SQLite with 25 uploaded EPUBs, bcrypt cost 10, LOG_LEVEL=warn. Latencies are exact percentiles of every 2xx. Load average ${loadBefore.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after (2 CPUs shared with other engineers' test runs).`,
      '',
      markdownTable(['target', 'req/s', '× Express', 'p50 ms', 'p99 ms', 'max ms', 'errors + non-2xx'], rows),
      '',
      `Fixed rate: \`GET /api/books\` at ${rate} req/s (half the measured maximum) for ${S.fixedSec} s: ${fixed.total} requests, ${fixedErrors} errors/non-2xx, p50 ${fmt(fixed.latency.p50)} ms, p99 ${fmt(fixed.latency.p99)} ms, max ${fmt(fixed.latency.max)} ms.`,
      '',
      `Targets: list and get ≥ 0.6× Express (${ratio(listRps, expressRps)}×, ${ratio(pooled(targets[3]!).rps, expressRps)}×); p99 < 20 ms at 50 connections (${fmt(pooled(targets[2]!).lat.p99)} / ${fmt(pooled(targets[3]!).lat.p99)} ms); fixed-rate run 0 errors (${fixedErrors}).`,
    ].join('\n');
    process.stdout.write(`${body}\n`);
    if (!process.argv.includes('--no-write')) {
      await appendResults({ title: 'Throughput: GET /api/books and /api/books/{id} vs hello-worlds', command: `npx tsx bench/throughput.ts ${process.argv.slice(2).join(' ')}`.trim(), startedAt, body });
    }
  } finally {
    for (const server of servers.reverse()) await server.stop();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
