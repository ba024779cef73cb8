import { createReadStream, existsSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { stat, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import type { KepubConverter, StagedFile } from '../../application/ports.js';
import { corruptBookFile, metadataTimeout } from '../../domain/error-catalogue.js';
import { DEFAULT_LIMITS, type MetadataLimits } from './limits.js';
import type { KepubTask, KepubTaskResult } from './kepub-worker.js';

import { KEPUB_CONVERTER_VERSION } from './kepub-version.js';

export { KEPUB_CONVERTER_VERSION };

export interface SafeKepubConverterOptions {
  /** Wall-clock budget per book once a worker has it (default 60 s). */
  readonly timeBudgetMs?: number;
  readonly limits?: Partial<MetadataLimits>;
  /** V8 old-generation cap of each worker (default 256 MB). */
  readonly maxHeapMb?: number;
}

/**
 * KEPUB conversion in one worker thread with a memory cap and a time budget, as the metadata reader
 * parses uploads: a hostile EPUB can neither hang nor exhaust the process, and is refused (422) with the
 * same archive checks. The output is a new file beside the source in the staging directory.
 */
export class SafeKepubConverter implements KepubConverter {
  readonly version = KEPUB_CONVERTER_VERSION;
  private readonly pool: Piscina<KepubTask, KepubTaskResult>;
  private readonly limits: MetadataLimits;
  private readonly timeBudgetMs: number;

  constructor(options: SafeKepubConverterOptions = {}) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.timeBudgetMs = options.timeBudgetMs ?? 60_000;
    const worker = workerUrl();
    this.pool = new Piscina({
      filename: worker.href,
      execArgv: worker.pathname.endsWith('.ts') ? ['--require', createRequire(import.meta.url).resolve('tsx/cjs')] : [],
      minThreads: 0,
      maxThreads: 1,
      idleTimeout: 30_000,
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb ?? 256, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
    });
  }

  /**
   * Conversions run one at a time, waiting here rather than in the pool's queue: with no idle thread
   * kept (minThreads 0), piscina leaves a queued task waiting after another was aborted at its time
   * budget, until some later task is submitted (outside review K1).
   */
  private turn: Promise<void> = Promise.resolve();

  async convert(source: StagedFile): Promise<StagedFile> {
    const previous = this.turn;
    let done!: () => void;
    this.turn = new Promise((resolve) => (done = resolve));
    await previous;
    try {
      return await this.convertNow(source);
    } finally {
      done();
    }
  }

  private async convertNow(source: StagedFile): Promise<StagedFile> {
    const output = join(dirname(source.handle), `${randomBytes(16).toString('hex')}.kepub`);
    const abort = new AbortController();
    const { port1, port2 } = new MessageChannel();
    let timedOut = false;
    let timer: NodeJS.Timeout | undefined;
    port1.once('message', () => {
      timer = setTimeout(() => {
        timedOut = true;
        abort.abort();
      }, this.timeBudgetMs);
    });
    try {
      const result = await this.pool.run({ input: source.handle, output, limits: this.limits, started: port2 }, { signal: abort.signal, transferList: [port2] })
        .catch((): KepubTaskResult => ({ ok: false, message: 'The EPUB could not be converted safely.' }));
      if (timedOut) throw metadataTimeout(this.timeBudgetMs);
      if (!result.ok) throw corruptBookFile(result.message);
      return { handle: output, ...(await describe(output)) };
    } catch (error) {
      await rm(output, { force: true });
      throw error;
    } finally {
      clearTimeout(timer);
      port1.close();
    }
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}

async function describe(path: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return { size: (await stat(path)).size, sha256: hash.digest('hex') };
}

/** The compiled worker next to this file, or the TypeScript source under tsx/vitest. */
function workerUrl(): URL {
  const js = new URL('./kepub-worker.js', import.meta.url);
  return existsSync(fileURLToPath(js)) ? js : new URL('./kepub-worker.ts', import.meta.url);
}
