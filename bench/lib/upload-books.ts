import { benchEpub } from './book-bytes.js';
import { sendUpload, sha256 } from './crash-workload.js';
import { seededRandom } from './seeded-random.js';

export interface IngestResult {
  readonly ids: string[];
  /** Completion time of each upload, ms since the ingest started, in completion order. */
  readonly doneAtMs: number[];
  readonly failures: number;
}

/**
 * Uploads `count` generated EPUBs (distinct titles and authors, `from` offsets the numbering)
 * through `POST /api/books`, `parallel` at a time; each EPUB is built just before it is sent.
 */
export async function ingestEpubs(base: string, token: string, count: number, options: { from?: number; parallel?: number; onProgress?: (done: number) => void } = {}): Promise<IngestResult> {
  const from = options.from ?? 0;
  const ids: string[] = [];
  const doneAtMs: number[] = [];
  let failures = 0;
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < count) {
      const i = from + next++;
      const rnd = seededRandom(1_000_000 + i);
      const bytes = await benchEpub(`Ingested Volume ${i}`, `Writer ${i % 997} ${i % 13}`, rnd, 4096);
      const answer = await sendUpload(base, token, { fileName: `volume-${i}.epub`, bytes, sha256: sha256(bytes) });
      if (answer.status === 201) ids.push(answer.body.id);
      else failures += 1;
      doneAtMs.push(performance.now() - t0);
      if (doneAtMs.length % 1000 === 0) options.onProgress?.(doneAtMs.length);
    }
  };
  await Promise.all(Array.from({ length: options.parallel ?? 4 }, worker));
  return { ids, doneAtMs, failures };
}
