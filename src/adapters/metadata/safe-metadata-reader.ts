import { existsSync } from 'node:fs';
import { MessageChannel } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { Piscina } from 'piscina';
import type { ExtractedBook, ExtractedCover, MetadataReader, StagedFile } from '../../application/ports.js';
import { BOOK_FORMATS } from '../../domain/book.js';
import { corruptBookFile, metadataBusy, metadataTimeout } from '../../domain/error-catalogue.js';
import { UnprocessableError, UnsupportedTypeError } from '../../domain/errors.js';
import { sniffImage } from './image-sniff.js';
import { DEFAULT_LIMITS, type MetadataLimits } from './limits.js';
import type { MetadataTask, MetadataTaskResult } from './metadata-worker.js';
import { finishMetadata } from './sanitize.js';

/** Extra time a worker thread may take to start before the budget applies anyway. */
const START_GRACE_MS = 10_000;

export interface SafeMetadataReaderOptions {
  /** Wall-clock budget per file once it starts parsing (default 5000 ms). */
  readonly timeBudgetMs?: number;
  readonly limits?: Partial<MetadataLimits>;
  /** Files parsed at once (default 2); the rest wait in line. */
  readonly concurrency?: number;
  /** Files allowed to wait before `metadata_busy` (default 100). */
  readonly maxQueue?: number;
  /** V8 old-generation cap of each worker (default 256 MB). */
  readonly maxHeapMb?: number;
  /** Test seam: a module with the same default export as metadata-worker. */
  readonly workerUrl?: URL;
}

/**
 * Reads untrusted ebook files in worker threads with a memory cap and a time budget
 * (UP-07, UP-10); a hung or crashed worker is terminated and the process keeps serving.
 */
export class SafeMetadataReader implements MetadataReader {
  private readonly pool: Piscina<MetadataTask, MetadataTaskResult>;
  private readonly limits: MetadataLimits;
  private readonly timeBudgetMs: number;
  private readonly concurrency: number;
  private readonly maxQueue: number;
  private readonly waiting: Array<() => void> = [];
  private running = 0;

  constructor(options: SafeMetadataReaderOptions = {}) {
    this.limits = { ...DEFAULT_LIMITS, ...options.limits };
    this.timeBudgetMs = options.timeBudgetMs ?? 5000;
    this.concurrency = options.concurrency ?? 2;
    this.maxQueue = options.maxQueue ?? 100;
    const filename = options.workerUrl ?? workerModuleUrl();
    this.pool = new Piscina({
      filename: filename.href,
      // From sources (tests), tsx's CommonJS hook: its ESM hook makes each worker cost ~3x the memory on Node 22+.
      execArgv: filename.pathname.endsWith('.ts') ? ['--require', createRequire(import.meta.url).resolve('tsx/cjs')] : [],
      minThreads: 0,
      maxThreads: this.concurrency,
      idleTimeout: 30_000,
      resourceLimits: { maxOldGenerationSizeMb: options.maxHeapMb ?? 256, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
    });
  }

  async read(file: StagedFile): Promise<ExtractedBook> {
    await this.acquire();
    const abort = new AbortController();
    const { port1, port2 } = new MessageChannel();
    let timedOut = false;
    const expire = () => {
      timedOut = true;
      abort.abort();
    };
    // The budget starts when a worker picks the task up; a thread that never starts is bounded too.
    let timer = setTimeout(expire, this.timeBudgetMs + START_GRACE_MS);
    port1.once('message', () => {
      clearTimeout(timer);
      timer = setTimeout(expire, this.timeBudgetMs);
    });
    try {
      const task: MetadataTask = { path: file.handle, size: file.size, limits: this.limits, started: port2 };
      const result = await this.pool.run(task, { signal: abort.signal, transferList: [port2] }).catch(() => {
        throw timedOut
          ? metadataTimeout(this.timeBudgetMs)
          : corruptBookFile('The file could not be read safely.');
      });
      return this.checked(result);
    } finally {
      clearTimeout(timer);
      port1.close();
      this.release();
    }
  }

  /** Stops the worker threads; reads still running fail. */
  async close(): Promise<void> {
    await this.pool.destroy();
  }

  private acquire(): Promise<void> {
    if (this.running < this.concurrency) {
      this.running++;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.maxQueue) {
      return Promise.reject(metadataBusy());
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }

  /** The worker's answer is re-validated: it came from code that handled hostile bytes. */
  private checked(result: MetadataTaskResult): ExtractedBook {
    if (!result.ok) {
      if (result.kind === 'unsupported') throw new UnsupportedTypeError(result.code, result.message);
      throw new UnprocessableError(result.code, result.message);
    }
    const { format, metadata, cover } = result.book;
    if (!BOOK_FORMATS.includes(format)) throw corruptBookFile('Unknown format from reader.');
    const { authors, isbn, tags, ...rest } = metadata;
    return {
      format,
      metadata: finishMetadata({ ...rest, authors: [...(authors ?? [])], isbn: isbn ? [isbn] : [], tags: [...(tags ?? [])] }),
      cover: this.checkedCover(cover),
    };
  }

  private checkedCover(cover: ExtractedCover | null): ExtractedCover | null {
    if (!cover || !(cover.data instanceof Uint8Array) || cover.data.length > this.limits.maxCoverBytes) return null;
    const mediaType = sniffImage(cover.data);
    return mediaType ? { data: cover.data, mediaType } : null;
  }
}

/** The compiled worker next to this file, or the TypeScript source when running under tsx/vitest. */
function workerModuleUrl(): URL {
  const js = new URL('./metadata-worker.js', import.meta.url);
  return existsSync(fileURLToPath(js)) ? js : new URL('./metadata-worker.ts', import.meta.url);
}
