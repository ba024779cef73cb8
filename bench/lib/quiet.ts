import { availableParallelism, loadavg } from 'node:os';

/**
 * Waits (bounded) until the 1-minute load average is at most `maxLoad` (default: the CPU count),
 * so a run does not start in the middle of someone else's test suite. Returns the load it started at.
 */
export async function waitForQuiet(options: { maxLoad?: number; maxWaitMs?: number; log?: (msg: string) => void } = {}): Promise<number> {
  const maxLoad = options.maxLoad ?? availableParallelism();
  const deadline = Date.now() + (options.maxWaitMs ?? 120_000);
  let announced = false;
  while (loadavg()[0]! > maxLoad && Date.now() < deadline) {
    if (!announced) options.log?.(`load average ${loadavg()[0]!.toFixed(1)} > ${maxLoad}: waiting up to ${Math.round((deadline - Date.now()) / 1000)} s`);
    announced = true;
    await new Promise((r) => setTimeout(r, 2_000));
  }
  return loadavg()[0]!;
}
