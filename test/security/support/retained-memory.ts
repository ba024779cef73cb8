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
  /** Resident set size; the allocator may reuse pages earlier work freed, so this can read low. */
  readonly rss: number;
  /** JS heap plus ArrayBuffer backing stores (Buffers): what the process itself holds. */
  readonly held: number;
}

/**
 * Runs `work` and samples this process's memory every `everyMs`, each sample right after a
 * young-generation collection. Bytes the process still references (a buffered body, kept chunks)
 * survive it and count, in RSS and in heap plus ArrayBuffers; unreferenced Buffers that V8 would
 * free later (on Node 24, only once about 64 MB of them have piled up) do not.
 * Why: docs/node-versions.md, UP-01.
 */
export async function retainedGrowth<T>(work: () => Promise<T>, everyMs = 10): Promise<{ result: T; grew: RetainedGrowth }> {
  const gc = collector();
  gc({ type: 'major' });
  const held = (m: NodeJS.MemoryUsage) => m.heapUsed + m.arrayBuffers;
  const m0 = process.memoryUsage();
  let [peakRss, peakHeld] = [m0.rss, held(m0)];
  const sample = () => {
    gc({ type: 'minor' });
    const m = process.memoryUsage();
    [peakRss, peakHeld] = [Math.max(peakRss, m.rss), Math.max(peakHeld, held(m))];
  };
  const sampler = setInterval(sample, everyMs);
  try {
    const result = await work();
    sample();
    return { result, grew: { rss: (peakRss - m0.rss) / MB, held: (peakHeld - held(m0)) / MB } };
  } finally {
    clearInterval(sampler);
  }
}
