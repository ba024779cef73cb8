import { availableParallelism } from 'node:os';
import type { LoadResult } from './lib/load.js';
import type { PacedResult } from './lib/paced.js';
import type { CpuUsage } from './lib/proc-cpu.js';
import { markdownTable } from './lib/results.js';
import { fmt, ratio, summarize, type LatencySummary } from './lib/stats.js';

export const THROUGHPUT_TARGET = 0.6;
export const P99_TARGET = 2;

/** One throughput target measured in several rounds. */
export interface ThroughputTarget {
  readonly name: string;
  readonly url: string;
  readonly pid: number;
  readonly rounds: LoadResult[];
  /** The server's CPU during each round. */
  readonly cpu: CpuUsage[];
}

/** One probe window: the same /api/auth/me stream measured two ways, and the server's CPU meanwhile. */
export interface ProbeWindow {
  readonly paced: PacedResult;
  readonly autocannon: LoadResult;
  readonly cpu: CpuUsage;
  readonly loadAverage: number;
}

export interface BurstCycle {
  readonly idle: ProbeWindow;
  readonly loaded: ProbeWindow;
  readonly logins: PacedResult;
}

export interface AuthSettings {
  readonly connections: number;
  readonly warmupSec: number;
  readonly rounds: number;
  readonly roundSec: number;
  readonly probeRate: number;
  readonly cycles: number;
  readonly windowSec: number;
  readonly loginRate: number;
  readonly accounts: number;
  readonly sourceAddresses: number;
}

const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const median = (xs: readonly number[]) => summarize(xs).p50;
const pooled = (runs: readonly { samples: readonly number[] }[]): LatencySummary => summarize(runs.flatMap((r) => r.samples));
const verdict = (ok: boolean) => (ok ? '**met**' : '**missed**');
const sum = (records: readonly Record<string, number>[]) => {
  const total: Record<string, number> = {};
  for (const r of records) for (const [k, v] of Object.entries(r)) total[k] = (total[k] ?? 0) + v;
  return JSON.stringify(total);
};

function throughputSection(s: AuthSettings, targets: readonly ThroughputTarget[]): string {
  const [express, , me] = targets as [ThroughputTarget, ThroughputTarget, ThroughputTarget];
  const rps = (t: ThroughputTarget) => mean(t.rounds.map((r) => r.requestsPerSec));
  const roundRatios = me.rounds.map((r, i) => ratio(r.requestsPerSec, express.rounds[i]!.requestsPerSec));
  const overall = ratio(rps(me), rps(express));
  // CPU time per request hardly depends on how much CPU other processes leave the server: on a busy
  // machine it predicts the quiet-machine throughput ratio better than the throughput does.
  const cpuPerRequestUs = (t: ThroughputTarget) => (t.cpu.reduce((a, c) => a + c.mainThreadMs + c.otherThreadsMs, 0) * 1000) / t.rounds.reduce((a, r) => a + r.total, 0);
  const mainShare = (t: ThroughputTarget) => mean(t.cpu.map((c) => c.mainThreadPct));
  const cpuRatio = ratio(cpuPerRequestUs(express), cpuPerRequestUs(me));
  const table = markdownTable(
    ['Target', 'req/s (mean of rounds)', 'req/s per round', '× Express', 'p50 ms', 'p99 ms', 'max ms', 'errors', 'non-2xx', 'server CPU µs/request', 'server main thread CPU %'],
    targets.map((t) => {
      const lat = pooled(t.rounds);
      return [t.name, fmt(rps(t), 0), t.rounds.map((r) => fmt(r.requestsPerSec, 0)).join(' / '), fmt(ratio(rps(t), rps(express))),
        fmt(lat.p50), fmt(lat.p99), fmt(lat.max), t.rounds.reduce((a, r) => a + r.errors + r.timeouts, 0), t.rounds.reduce((a, r) => a + r.non2xx, 0),
        fmt(cpuPerRequestUs(t), 0), fmt(mainShare(t), 0)];
    }),
  );
  return `### Throughput: ${s.connections} connections; ${s.warmupSec} s warm-up each, then ${s.rounds} rounds × ${s.roundSec} s per target, targets alternating

${table}

Target \`/api/auth/me\` ≥ ${THROUGHPUT_TARGET}× Express hello-world: **${fmt(overall)}×** (per round: ${roundRatios.map((r) => fmt(r)).join(', ')}; median ${fmt(median(roundRatios))}) — ${verdict(overall >= THROUGHPUT_TARGET)}.
By CPU time per request (Express µs ÷ Stacks µs): **${fmt(cpuRatio)}×**. A main thread well under 100 % CPU means the server was starved by other processes, not saturated.`;
}

function burstSection(s: AuthSettings, label: string, cycles: readonly BurstCycle[], isTarget: boolean): string {
  const idlePaced = pooled(cycles.map((c) => c.idle.paced));
  const loadPaced = pooled(cycles.map((c) => c.loaded.paced));
  const idleAc = pooled(cycles.map((c) => c.idle.autocannon));
  const loadAc = pooled(cycles.map((c) => c.loaded.autocannon));
  const row = (phase: string, probe: string, lat: LatencySummary, windows: readonly ProbeWindow[], statuses: string, errors: number) => [
    phase, probe, lat.count, fmt(lat.p50), fmt(lat.p90), fmt(lat.p99), fmt(lat.max), errors, statuses,
    fmt(mean(windows.map((w) => w.cpu.mainThreadPct)), 0), fmt(mean(windows.map((w) => w.cpu.otherThreadsPct)), 0), fmt(mean(windows.map((w) => w.loadAverage)), 1)];
  const idles = cycles.map((c) => c.idle);
  const loads = cycles.map((c) => c.loaded);
  const table = markdownTable(
    ['Phase', 'Probe', 'responses', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'errors', 'statuses', 'server main thread CPU %', 'server other threads CPU %', 'load avg'],
    [
      row('idle', 'paced', idlePaced, idles, sum(idles.map((w) => w.paced.statusCodes)), idles.reduce((a, w) => a + w.paced.errors + w.paced.skipped, 0)),
      row('login stream', 'paced', loadPaced, loads, sum(loads.map((w) => w.paced.statusCodes)), loads.reduce((a, w) => a + w.paced.errors + w.paced.skipped, 0)),
      row('idle', 'autocannon', idleAc, idles, sum(idles.map((w) => w.autocannon.statusCodes)), idles.reduce((a, w) => a + w.autocannon.errors, 0)),
      row('login stream', 'autocannon', loadAc, loads, sum(loads.map((w) => w.autocannon.statusCodes)), loads.reduce((a, w) => a + w.autocannon.errors, 0)),
    ],
  );
  const logins = cycles.map((c) => c.logins);
  const loginLat = pooled(logins);
  const sent = logins.reduce((a, l) => a + l.sent, 0);
  const pacedRatio = ratio(loadPaced.p99, idlePaced.p99);
  const acRatio = ratio(loadAc.p99, idleAc.p99);
  const perCycle = cycles.map((c) => fmt(ratio(c.loaded.paced.latency.p99, c.idle.paced.latency.p99))).join(', ');
  const judge = (ok: boolean) => (isTarget ? verdict(ok) : ok ? 'would be met' : 'would be missed');
  return `### Login burst (${label}): \`GET /api/auth/me\` at ${s.probeRate} req/s, idle vs during ${s.loginRate} logins/s; ${s.cycles} cycles of ${s.windowSec} s windows per probe

Login stream: ${sent} logins at ${fmt(mean(logins.map((l) => l.achievedRate)), 1)}/s, alternating right and wrong passwords over ${s.accounts} accounts from
${s.sourceAddresses} loopback source addresses (the per-address throttle blocks after 100 failures). Statuses ${sum(logins.map((l) => l.statusCodes))},
errors ${sum(logins.map((l) => l.errorKinds))}, skipped ${logins.reduce((a, l) => a + l.skipped, 0)}; login latency p50 ${fmt(loginLat.p50)} ms, p99 ${fmt(loginLat.p99)} ms.

${table}

Probes: "paced" sends one request every ${fmt(1000 / s.probeRate)} ms, timed from its scheduled start (open loop); "autocannon" is
\`overallRate: ${s.probeRate}\` over 10 connections, which sends each connection's quota back to back at the top of every second.
Every response is timed (exact percentiles, pooled over the cycles). CPU % is of one core, from /proc/<pid>/task during the paced window.

Target p99 during the login stream < ${P99_TARGET}× idle p99:
- paced: **${fmt(pacedRatio)}×** (${fmt(idlePaced.p99)} → ${fmt(loadPaced.p99)} ms; per cycle ${perCycle}) — ${judge(pacedRatio < P99_TARGET)}
- autocannon: **${fmt(acRatio)}×** (${fmt(idleAc.p99)} → ${fmt(loadAc.p99)} ms) — ${judge(acRatio < P99_TARGET)}`;
}

/** The markdown body of the foundation section. */
export function authReport(
  s: AuthSettings,
  targets: readonly ThroughputTarget[],
  bursts: readonly { label: string; cycles: readonly BurstCycle[] }[],
  load: { loadBefore: number; loadAfter: number },
): string {
  const overloaded = Math.max(load.loadBefore, load.loadAfter) > 2 * availableParallelism();
  const warning = overloaded
    ? `\n**Not a valid measurement:** the load average exceeded twice the CPU count, so the servers got a small, varying share of the CPU (see the CPU % columns). The verdicts below are printed but mean little; rerun on a quiet machine.\n`
    : '';
  return `Load average (1 min) before the run ${fmt(load.loadBefore, 1)}, after ${fmt(load.loadAfter, 1)} (${availableParallelism()} CPUs).
${warning}
${throughputSection(s, targets)}

${bursts.map((b, i) => burstSection(s, b.label, b.cycles, i === 0)).join('\n\n')}
`;
}
