import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const MB = 1024 * 1024;

type Collector = (options?: { type: 'major' | 'minor' }) => void;

/** V8's collector, exposed at run time as jest-leak-detector does it (no --expose-gc flag needed). */
function collector(): Collector {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as Collector;
}

/** The peak growth of this process's memory while some work ran, in MB. */
export interface RetainedGrowth {
  readonly rss: number;
  readonly heapUsed: number;
  readonly arrayBuffers: number;
}

/**
 * Runs `work` and samples this process's RSS every `everyMs`, each sample right after a
 * young-generation collection. Bytes the process still references (a buffered body, kept chunks)
 * survive it and count; unreferenced Buffers that V8 would free later (on Node 24, only once about
 * 64 MB of them have piled up) do not. Why: docs/node-versions.md, UP-01.
 */
export async function retainedGrowth<T>(work: () => Promise<T>, everyMs = 10): Promise<{ result: T; grew: RetainedGrowth }> {
  const gc = collector();
  gc({ type: 'major' });
  const m0 = process.memoryUsage();
  let peak = m0;
  const sample = () => {
    gc({ type: 'minor' });
    const m = process.memoryUsage();
    if (m.rss > peak.rss) peak = m;
  };
  const sampler = setInterval(sample, everyMs);
  try {
    const result = await work();
    sample();
    const grew = { rss: peak.rss - m0.rss, heapUsed: peak.heapUsed - m0.heapUsed, arrayBuffers: peak.arrayBuffers - m0.arrayBuffers };
    return { result, grew: { rss: grew.rss / MB, heapUsed: grew.heapUsed / MB, arrayBuffers: grew.arrayBuffers / MB } };
  } finally {
    clearInterval(sampler);
  }
}
