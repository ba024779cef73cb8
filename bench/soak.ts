/**
 * Soak: a mixed load (list, get, search, metadata edits, shelf additions, small uploads) first run
 * flat out for 20 s to find its maximum, then held at 50% of it for --minutes (default 10). Samples
 * the server's RSS and open fds from /proc and its event-loop delay through a bench-only preload.
 * Run: npx tsx bench/soak.ts [--minutes 10] [--no-write]
 */
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { runPaced, type PacedRequest } from './lib/paced.js';
import { fdCount, mib, rssBytes } from './lib/proc-stats.js';
import { appendResults, markdownTable } from './lib/results.js';
import { bearer, registerUser } from './lib/stacks-client.js';
import { buildStacks, startStacks } from './lib/stacks-server.js';
import { fmt, summarize } from './lib/stats.js';
import { ingestEpubs } from './lib/upload-books.js';

const { values } = parseArgs({ options: { minutes: { type: 'string', default: '10' }, 'no-write': { type: 'boolean', default: false } } });
const log = (msg: string) => process.stderr.write(`[bench:soak ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const WORDS = ['harbour', 'volume', 'writer', 'quiet', 'stone', 'river'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The i-th request of the mix: 55% list, 15% get, 15% search, 5% edit, 5% shelf add, 5% small upload. */
function mix(base: string, token: string, bookIds: readonly string[], shelfId: string, run: string): (i: number) => PacedRequest {
  const auth = bearer(token);
  return (i) => {
    const slot = i % 20;
    const id = bookIds[(i * 7919) % bookIds.length]!;
    if (slot < 11) return { url: `${base}/api/books?page=${1 + (i % 10)}`, headers: auth };
    if (slot < 14) return { url: `${base}/api/books/${id}`, headers: auth };
    if (slot < 17) return { url: `${base}/api/books?q=${WORDS[i % WORDS.length]}`, headers: auth };
    if (slot === 17) return { url: `${base}/api/books/${id}`, method: 'PATCH', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ description: `edited ${run} ${i}` }) };
    if (slot === 18) return { url: `${base}/api/shelves/${shelfId}/books/${id}`, method: 'PUT', headers: auth };
    const boundary = `soak${i}`;
    const text = `Soak ${run} book ${i}\n\n${WORDS.join(' ').repeat(20)} ${i}\n`;
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="soak-${run}-${i}.txt"\r\nContent-Type: text/plain\r\n\r\n${text}\r\n--${boundary}--\r\n`;
    return { url: `${base}/api/books`, method: 'POST', headers: { ...auth, 'content-type': `multipart/form-data; boundary=${boundary}` }, body };
  };
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const minutes = Number(values.minutes);
  log('building dist/');
  await buildStacks();
  const eldFile = join(tmpdir(), `stacks-eld-${process.pid}.jsonl`);
  const stacks = await startStacks({
    nodeArgs: ['--require', fileURLToPath(new URL('./lib/preload/event-loop-delay.cjs', import.meta.url))],
    env: { STACKS_ELD_FILE: eldFile, STACKS_ELD_INTERVAL_MS: '5000' },
  });
  try {
    const { token } = await registerUser(stacks.url, 'soaker');
    const idleFrom = Date.now();
    await sleep(11_000);
    const idleTo = Date.now();
    const { ids } = await ingestEpubs(stacks.url, token, 300);
    const shelf = await fetch(`${stacks.url}/api/shelves`, { method: 'POST', headers: { ...bearer(token), 'content-type': 'application/json' }, body: JSON.stringify({ name: 'soak' }) }).then((r) => r.json() as Promise<{ id: string }>);
    log('finding the maximum (20 s, at most 32 in flight)');
    const max = await runPaced({ rate: 3000, durationMs: 20_000, maxInFlight: 32, next: mix(stacks.url, token, ids, shelf.id, 'max') });
    const maxRate = max.sent / 20;
    const rate = Math.max(10, Math.round(maxRate / 2));
    log(`maximum ≈ ${fmt(maxRate, 0)} req/s; soaking at ${rate} req/s for ${minutes} min`);
    await runPaced({ rate, durationMs: 15_000, next: mix(stacks.url, token, ids, shelf.id, 'warm') });
    await sleep(3_000);
    const before = { rss: await rssBytes(stacks.pid), fds: await fdCount(stacks.pid), at: Date.now() };
    const windows: (string | number)[][] = [];
    let errors = 0, non2xx = 0, sent = 0;
    const errorKinds: Record<string, number> = {};
    const all: number[] = [];
    const windowMs = Math.min(60_000, minutes * 60_000);
    for (let w = 0; w * windowMs < minutes * 60_000; w++) {
      const r = await runPaced({ rate, durationMs: windowMs, next: mix(stacks.url, token, ids, shelf.id, `w${w}`) });
      const bad = Object.entries(r.statusCodes).filter(([code]) => !code.startsWith('2')).reduce((s, [, n]) => s + n, 0);
      errors += r.errors + r.skipped;
      for (const [kind, n] of Object.entries(r.errorKinds)) errorKinds[kind] = (errorKinds[kind] ?? 0) + n;
      non2xx += bad;
      sent += r.sent;
      all.push(...r.samples);
      const rss = await rssBytes(stacks.pid);
      windows.push([w + 1, r.sent, fmt(r.achievedRate, 0), fmt(r.latency.p50), fmt(r.latency.p99), r.errors + r.skipped + bad, mib(rss), await fdCount(stacks.pid)]);
      log(`window ${w + 1}: p99 ${fmt(r.latency.p99)} ms, RSS ${mib(rss)} MiB, errors ${r.errors + r.skipped + bad} ${JSON.stringify(r.statusCodes)} ${JSON.stringify(r.errorKinds)}`);
    }
    const duringEnd = Date.now();
    await sleep(6_000);
    const after = { rss: await rssBytes(stacks.pid), fds: await fdCount(stacks.pid) };
    const eld = (await readFile(eldFile, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { at: number; p99: number; max: number });
    const idle = eld.filter((e) => e.at > idleFrom + 5_000 && e.at <= idleTo).slice(0, 1);
    const loaded = eld.filter((e) => e.at > before.at + 5_000 && e.at <= duringEnd);
    const eldP99 = summarize(loaded.map((e) => e.p99));
    const lat = summarize(all);
    const growth = ((after.rss - before.rss) / before.rss) * 100;
    const body = [
      `Mix per 20 requests: 11 list pages, 3 gets, 3 searches, 1 PATCH, 1 shelf PUT, 1 plain-text upload (multipart, distinct). Maximum found with at most 32 in flight for 20 s: ${fmt(maxRate, 0)} req/s (${JSON.stringify(max.statusCodes)}). Held at ${rate} req/s (open loop, evenly spaced, latency from the scheduled time) for ${minutes} min after 15 s warm-up; Stacks from dist/, SQLite, started with 300 EPUBs. Event-loop delay from a bench-only preload (\`bench/lib/preload/event-loop-delay.cjs\`, \`monitorEventLoopDelay\`, 5 s windows, delay beyond the 10 ms timer).`,
      '',
      markdownTable(['window', 'requests', 'req/s', 'p50 ms', 'p99 ms', 'errors + non-2xx', 'RSS MiB', 'open fds'], windows),
      '',
      markdownTable(['measure', 'value', 'target'], [
        ['requests / errors + non-2xx', `${sent} / ${errors + non2xx} ${JSON.stringify(errorKinds)}`, '0 errors'],
        ['latency p50 / p99 over the run', `${fmt(lat.p50)} / ${fmt(lat.p99)} ms`, '-'],
        ['RSS after warm-up → 6 s after the load', `${mib(before.rss)} → ${mib(after.rss)} MiB (${fmt(growth, 1)}%)`, '< 10% growth'],
        ['open fds before → 6 s after the load', `${before.fds} → ${after.fds}`, 'back to baseline'],
        ['event-loop delay p99 per 5 s window under load: median / max', `${fmt(eldP99.p50)} / ${fmt(eldP99.max)} ms`, 'p99 < 50 ms'],
        ['event-loop delay p99, idle server before the load (baseline)', idle.length ? `${fmt(idle[0]!.p99)} ms` : 'n/a', '-'],
      ]),
    ].join('\n');
    process.stdout.write(`${body}\n`);
    if (!values['no-write']) await appendResults({ title: `Soak: mixed load at 50% of maximum for ${minutes} min`, command: `npx tsx bench/soak.ts ${process.argv.slice(2).join(' ')}`.trim(), startedAt, body });
  } finally {
    await stacks.stopAndClean();
    await rm(eldFile, { force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
