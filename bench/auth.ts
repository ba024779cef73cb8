/**
 * Foundation benchmark: authenticated GET /api/auth/me against two hello-world baselines, and
 * /api/auth/me latency during a stream of 20 bcrypt-cost-10 logins per second.
 * The burst runs twice: as built, and with the bcrypt worker threads at nice 19 (a bench-only
 * preload), to show where the read latency under the login stream comes from.
 * Run: npx tsx bench/auth.ts [--quick] [--no-write] [--profile]
 */
import { loadavg } from 'node:os';
import { authReport, type BurstCycle, type ThroughputTarget } from './auth-report.js';
import { startBaseline, BASELINE_PATH } from './lib/baselines.js';
import type { ChildServer } from './lib/child-server.js';
import { runLoad } from './lib/load.js';
import { runPaced, type PacedResult } from './lib/paced.js';
import { measureCpu } from './lib/proc-cpu.js';
import { waitForQuiet } from './lib/quiet.js';
import { appendResults, machineInfo } from './lib/results.js';
import { bearer, BENCH_PASSWORD, registerUser, registerUsers } from './lib/stacks-client.js';
import { buildStacks, startStacks, type StacksServer } from './lib/stacks-server.js';
import { fileURLToPath } from 'node:url';

const args = new Set(process.argv.slice(2));
const quick = args.has('--quick');
const SETTINGS = {
  connections: 50,
  warmupSec: quick ? 1 : 3,
  rounds: quick ? 1 : 3, // throughput: targets alternate in rounds so machine noise hits all of them alike
  roundSec: quick ? 3 : 5, // 3 × 5 s = 15 s measured per target
  probeRate: 200,
  cycles: quick ? 1 : 3, // login burst: idle and loaded windows alternate
  windowSec: quick ? 3 : 5,
  loginRate: 20,
  accounts: 61, // odd, so logins i and i+61 differ in parity: every account alternates right and wrong passwords
  sourceAddresses: 8, // 127.0.0.2–9: the per-address throttle allows 100 failures a day per address
} as const;
const S = SETTINGS;
const PROFILE = args.has('--profile') ? ['--cpu-prof', '--cpu-prof-dir=bench/out'] : [];
const log = (msg: string) => process.stderr.write(`[bench:auth ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function throughput(): Promise<ThroughputTarget[]> {
  const servers: ChildServer[] = [];
  try {
    const express = await startBaseline('express');
    servers.push(express);
    const nodeHttp = await startBaseline('node-http');
    servers.push(nodeHttp);
    const stacks = await startStacks({ nodeArgs: PROFILE });
    servers.push({ ...stacks, stop: () => stacks.stopAndClean() });
    const { token } = await registerUser(stacks.url, 'reader0');
    const targets: (ThroughputTarget & { headers: Record<string, string> })[] = [
      { name: 'Express 5 hello-world `GET /hello`', url: `${express.url}${BASELINE_PATH}`, pid: express.pid, headers: {}, rounds: [], cpu: [] },
      { name: 'node:http hello-world `GET /hello`', url: `${nodeHttp.url}${BASELINE_PATH}`, pid: nodeHttp.pid, headers: {}, rounds: [], cpu: [] },
      { name: 'Stacks `GET /api/auth/me` (Bearer)', url: `${stacks.url}/api/auth/me`, pid: stacks.pid, headers: bearer(token), rounds: [], cpu: [] },
    ];
    for (const t of targets) {
      log(`throughput warm-up: ${t.name}`);
      await runLoad({ url: t.url, headers: t.headers, connections: S.connections, durationSec: S.warmupSec });
    }
    for (let round = 1; round <= S.rounds; round++) {
      for (const t of targets) {
        log(`throughput round ${round}: ${t.name} (load average ${loadavg()[0]!.toFixed(1)})`);
        const { result, cpu } = await measureCpu(t.pid, () => runLoad({ url: t.url, headers: t.headers, connections: S.connections, durationSec: S.roundSec }));
        t.rounds.push(result);
        t.cpu.push(cpu);
      }
    }
    return targets;
  } finally {
    for (const server of servers.reverse()) await server.stop();
  }
}

function loginStream(stacks: StacksServer, usernames: readonly string[], first: number, durationMs: number): Promise<PacedResult> {
  return runPaced({
    rate: S.loginRate,
    durationMs,
    next: (n) => {
      const i = first + n;
      const password = i % 2 === 0 ? BENCH_PASSWORD : 'wrong password 0123';
      return {
        url: `${stacks.url}/api/auth/login`,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: usernames[i % usernames.length], password }),
        localAddress: `127.0.0.${2 + (i % S.sourceAddresses)}`,
      };
    },
  });
}

async function probeWindow(stacks: StacksServer, token: string): Promise<Omit<BurstCycle['idle'], 'loadAverage'>> {
  const url = `${stacks.url}/api/auth/me`;
  const { result: paced, cpu } = await measureCpu(stacks.pid, () =>
    runPaced({ rate: S.probeRate, durationMs: S.windowSec * 1000, next: () => ({ url, headers: bearer(token) }) }));
  const autocannon = await runLoad({ url, headers: bearer(token), connections: 10, overallRate: S.probeRate, durationSec: S.windowSec });
  return { paced, autocannon, cpu };
}

const NICE_WORKERS = ['--require', fileURLToPath(new URL('./lib/preload/nice-workers.cjs', import.meta.url))];

async function loginBurst(nodeArgs: readonly string[]): Promise<BurstCycle[]> {
  const stacks = await startStacks({ nodeArgs: [...PROFILE, ...nodeArgs] });
  try {
    const { token } = await registerUser(stacks.url, 'prober0');
    const usernames = (await registerUsers(stacks.url, 'login', S.accounts)).map((a) => a.username);
    log('burst warm-up');
    await runPaced({ rate: S.probeRate, durationMs: S.warmupSec * 1000, next: () => ({ url: `${stacks.url}/api/auth/me`, headers: bearer(token) }) });
    const cycles: BurstCycle[] = [];
    let loginsSent = 0;
    for (let cycle = 1; cycle <= S.cycles; cycle++) {
      log(`burst cycle ${cycle}: idle window (load average ${loadavg()[0]!.toFixed(1)})`);
      const idle = { ...(await probeWindow(stacks, token)), loadAverage: loadavg()[0]! };
      log(`burst cycle ${cycle}: window during the login stream`);
      const leadInMs = 1_000;
      const stream = loginStream(stacks, usernames, loginsSent, leadInMs + 2 * S.windowSec * 1000);
      await sleep(leadInMs);
      const loaded = { ...(await probeWindow(stacks, token)), loadAverage: loadavg()[0]! };
      const logins = await stream;
      loginsSent += logins.sent + logins.skipped;
      cycles.push({ idle, loaded, logins });
      await sleep(1_000);
    }
    return cycles;
  } finally {
    await stacks.stopAndClean();
  }
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const loadBefore = loadavg()[0]!;
  log('building dist/ (tsc -p tsconfig.build.json)');
  const diagnostics = await buildStacks();
  if (diagnostics) log(`tsc reported type errors (dist/ was still emitted):\n${diagnostics}`);
  await waitForQuiet({ log });
  const targets = await throughput();
  await waitForQuiet({ log });
  const asBuilt = await loginBurst([]);
  log('burst again with the bcrypt workers at nice 19');
  const niced = await loginBurst(NICE_WORKERS);
  const bursts = [{ label: 'as built', cycles: asBuilt }, { label: 'experiment: worker threads at nice 19 (bench-only preload)', cycles: niced }];
  const body = authReport(S, targets, bursts, { loadBefore, loadAfter: loadavg()[0]! });
  process.stdout.write(body);
  if (!args.has('--no-write')) {
    const command = `npx tsx bench/auth.ts ${process.argv.slice(2).join(' ')}`.trim();
    await appendResults({ title: 'Foundation: /api/auth/me and login burst', command, startedAt, body }, machineInfo());
    log('appended to bench/RESULTS.md');
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
