import { readdir, readFile } from 'node:fs/promises';

/** CPU time a process has used so far (Linux /proc), split into its main thread and all other threads. */
export interface CpuSnapshot {
  readonly atMs: number;
  readonly mainTicks: number;
  readonly otherTicks: number;
}

/** CPU use between two snapshots: percent of one core, and milliseconds (10 ms resolution). */
export interface CpuUsage {
  readonly mainThreadPct: number;
  readonly otherThreadsPct: number;
  readonly mainThreadMs: number;
  readonly otherThreadsMs: number;
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

async function threadTicks(pid: number, tid: string): Promise<number> {
  const stat = await readFile(`/proc/${pid}/task/${tid}/stat`, 'utf8').catch(() => '');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11] ?? 0) + Number(fields[12] ?? 0); // utime + stime
}

/** Reads every thread of `pid`; threads that end between two snapshots are lost from `otherTicks`. */
export async function cpuSnapshot(pid: number): Promise<CpuSnapshot> {
  const tids = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  let mainTicks = 0, otherTicks = 0;
  for (const tid of tids) {
    const ticks = await threadTicks(pid, tid);
    if (tid === String(pid)) mainTicks = ticks;
    else otherTicks += ticks;
  }
  return { atMs: performance.now(), mainTicks, otherTicks };
}

export function cpuUsage(before: CpuSnapshot, after: CpuSnapshot): CpuUsage {
  const seconds = (after.atMs - before.atMs) / 1000;
  const pct = (ticks: number) => Math.round((ticks / TICKS_PER_SECOND / seconds) * 100);
  const main = after.mainTicks - before.mainTicks;
  const other = after.otherTicks - before.otherTicks;
  const ms = (ticks: number) => (ticks * 1000) / TICKS_PER_SECOND;
  return { mainThreadPct: pct(main), otherThreadsPct: pct(other), mainThreadMs: ms(main), otherThreadsMs: ms(other) };
}

/** Runs `work` and reports the CPU the process used meanwhile. */
export async function measureCpu<T>(pid: number, work: () => Promise<T>): Promise<{ result: T; cpu: CpuUsage }> {
  const before = await cpuSnapshot(pid);
  const result = await work();
  return { result, cpu: cpuUsage(before, await cpuSnapshot(pid)) };
}
