import { readdir, readFile } from 'node:fs/promises';

/** Resident set size of a process in bytes (Linux /proc), NaN once it is gone. */
export async function rssBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
  return kb === undefined ? Number.NaN : Number(kb) * 1024;
}

/** Open file descriptors of a process (entries of /proc/<pid>/fd). */
export async function fdCount(pid: number): Promise<number> {
  return (await readdir(`/proc/${pid}/fd`).catch(() => [])).length;
}

/** Samples RSS every `everyMs` until stopped; reports the first sample and the peak. */
export function watchRss(pid: number, everyMs = 20): { stop(): Promise<{ first: number; peak: number; last: number }> } {
  let first = Number.NaN, peak = 0, last = Number.NaN;
  let running = true;
  const loop = (async () => {
    while (running) {
      last = await rssBytes(pid);
      if (Number.isNaN(first)) first = last;
      if (last > peak) peak = last;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return { first, peak, last };
    },
  };
}

export const mib = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);
