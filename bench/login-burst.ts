/**
 * Login burst: 150 logins on one account sent at once (149 wrong passwords, then the right one), at
 * production bcrypt cost 10, while `GET /api/auth/me` runs at 200 req/s. Counts how many attempts
 * reached the password check (401 or 200; 429 was refused before it), the server's CPU time for the
 * burst, and /me p99 during the burst against the same run's idle windows. The probe runs in a process
 * of its own, so sending the burst does not delay it in this process's event loop.
 * Run: npx tsx bench/login-burst.ts [--quick] [--no-write] [--profile]
 */
import { request } from 'node:http';
import type { PacedResult } from './lib/paced.js';
import { startPacedProcess } from './lib/paced-process.js';
import { cpuSnapshot, cpuUsage } from './lib/proc-cpu.js';
import { waitForQuiet } from './lib/quiet.js';
import { appendResults, machineInfo, markdownTable } from './lib/results.js';
import { bearer, BENCH_PASSWORD, registerUser } from './lib/stacks-client.js';
import { fmt, ratio, summarize } from './lib/stats.js';
import { buildStacks, startStacks } from './lib/stacks-server.js';

const args = new Set(process.argv.slice(2));
const CYCLES = args.has('--quick') ? 1 : 3;
const WINDOW_MS = 5000;
const BURST = 150;
const PROBE_RATE = 200;
const PROFILE = args.has('--profile') ? ['--cpu-prof', '--cpu-prof-dir=bench/out'] : [];
const log = (msg: string) => process.stderr.write(`[bench:login-burst] ${msg}\n`);

interface Burst { readonly statuses: Record<number, number>; readonly checked: number; readonly cpuMs: number; readonly mainMs: number; readonly probe: PacedResult }

/** POSTs a login from a chosen loopback source address (each burst its own, so the per-address limit of one burst does not carry into the next). */
function login(url: string, body: string, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/auth/login`, { method: 'POST', localAddress, headers: { 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function burstOnce(url: string, username: string, probe: () => Promise<PacedResult>, pid: number, from: string): Promise<Burst> {
  const probing = probe();
  await new Promise((r) => setTimeout(r, 1000));
  const before = await cpuSnapshot(pid);
  const answers = await Promise.all(Array.from({ length: BURST }, (_, i) =>
    login(url, JSON.stringify({ username, password: i === BURST - 1 ? BENCH_PASSWORD : `wrong password ${i}` }), from)));
  const cpu = cpuUsage(before, await cpuSnapshot(pid));
  const statuses: Record<number, number> = {};
  for (const s of answers) statuses[s] = (statuses[s] ?? 0) + 1;
  return { statuses, checked: (statuses[401] ?? 0) + (statuses[200] ?? 0), cpuMs: cpu.mainThreadMs + cpu.otherThreadsMs, mainMs: cpu.mainThreadMs, probe: await probing };
}

async function main(): Promise<void> {
  const startedAt = new Date();
  log('building');
  const buildErrors = await buildStacks();
  if (buildErrors) throw new Error(buildErrors);
  await waitForQuiet({ log });
  const stacks = await startStacks({ nodeArgs: PROFILE });
  const prober = startPacedProcess();
  try {
    const reader = await registerUser(stacks.url, 'prober');
    const probe = () => prober.run({ rate: PROBE_RATE, durationMs: WINDOW_MS, request: { url: `${stacks.url}/api/auth/me`, headers: bearer(reader.token) } });
    await probe();
    log('warming up the login path (first-use module loads, JIT, the bcrypt workers)');
    const warm = await registerUser(stacks.url, 'warmup');
    await Promise.all(Array.from({ length: 20 }, (_, i) => login(stacks.url, JSON.stringify({ username: warm.username, password: `warm-up ${i}` }), '127.0.0.9')));
    const idle: PacedResult[] = [];
    const bursts: Burst[] = [];
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      log(`cycle ${cycle}: idle window`);
      idle.push(await probe());
      const victim = await registerUser(stacks.url, `victim${cycle}`);
      log(`cycle ${cycle}: burst window`);
      bursts.push(await burstOnce(stacks.url, victim.username, probe, stacks.pid, `127.0.0.${10 + cycle}`));
    }
    const idleP99 = summarize(idle.flatMap((r) => r.samples)).p99;
    const burstP99 = summarize(bursts.flatMap((b) => b.probe.samples)).p99;
    const worstChecked = Math.max(...bursts.map((b) => b.checked));
    const rows = bursts.map((b, i) => [i + 1, JSON.stringify(b.statuses), b.checked, fmt(b.cpuMs / 1000), fmt(b.mainMs), fmt(summarize(b.probe.samples).p99), b.probe.errors]);
    const body = [
      `150 parallel logins on one account from one client address (a new account and address each cycle) (149 wrong, then the right password), bcrypt cost 10, policy 10 failures per account; \`GET /api/auth/me\` probed at ${PROBE_RATE} req/s in ${WINDOW_MS / 1000} s windows, idle and burst windows alternating, ${CYCLES} cycles.`,
      '',
      markdownTable(['cycle', 'login statuses', 'reached the password check', 'server CPU for the burst (s)', 'of it on the event loop (ms)', '/me p99 in the burst window (ms)', 'probe errors'], rows),
      '',
      `- /me p99 idle (same run, pooled): ${fmt(idleP99)} ms; during bursts: ${fmt(burstP99)} ms; ratio ${fmt(ratio(burstP99, idleP99))}× (target < 2×).`,
      `- Most attempts that reached bcrypt in one burst: ${worstChecked} (target ≤ 10).`,
    ].join('\n');
    process.stdout.write(`${body}\n`);
    if (!args.has('--no-write')) {
      await appendResults({ title: 'Login burst: 150 logins at once on one account (issue 13)', command: `npx tsx bench/login-burst.ts ${process.argv.slice(2).join(' ')}`.trim(), startedAt, body }, machineInfo());
    }
  } finally {
    await prober.close();
    await stacks.stopAndClean();
  }
}

await main();
