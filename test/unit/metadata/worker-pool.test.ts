import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SafeMetadataReader } from '../../../src/adapters/metadata/safe-metadata-reader.js';
import { UnavailableError, UnprocessableError } from '../../../src/domain/errors.js';
import { buildEpub, fixtureDir, stageBytes } from '../../support/fixtures/index.js';

const testWorker = new URL('../../support/fixtures/test-metadata-worker.ts', import.meta.url);
let dir: Awaited<ReturnType<typeof fixtureDir>>;
let n = 0;
const stage = (content: Buffer | string) => stageBytes(dir.path(`f${n++}`), Buffer.isBuffer(content) ? content : Buffer.from(content));

beforeAll(async () => {
  dir = await fixtureDir();
});
afterAll(() => dir.cleanup());

describe('SafeMetadataReader worker pool', () => {
  it('terminates a worker stuck in a loop at the time budget and keeps serving', async () => {
    const reader = new SafeMetadataReader({ timeBudgetMs: 1500, workerUrl: testWorker });
    try {
      await reader.read(await stage('SLEEP:1')); // warm the worker so the budget measures the task
      // HANG never ends by itself: metadata_timeout is the budget firing (how late the timer fires is the machine's).
      const error = await reader.read(await stage('HANG')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnprocessableError);
      expect(error).toMatchObject({ code: 'metadata_timeout' });
      expect((await reader.read(await stage(await buildEpub()))).metadata.title).toBe('The Left Hand of Darkness');
    } finally {
      await reader.close();
    }
  });

  it('turns a worker that runs out of memory, or exits, into a 422 and keeps serving', async () => {
    const reader = new SafeMetadataReader({ timeBudgetMs: 20_000, maxHeapMb: 64, workerUrl: testWorker });
    try {
      const rssBefore = process.memoryUsage().rss;
      await expect(reader.read(await stage('OOM'))).rejects.toMatchObject({ kind: 'unprocessable', code: 'corrupt_book_file' });
      await expect(reader.read(await stage('EXIT'))).rejects.toMatchObject({ kind: 'unprocessable', code: 'corrupt_book_file' });
      expect((await reader.read(await stage(await buildEpub()))).format).toBe('epub');
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(300 * 1024 * 1024);
    } finally {
      await reader.close();
    }
  });

  it('parses at most `concurrency` files at once; the rest queue', async () => {
    const reader = new SafeMetadataReader({ concurrency: 2, workerUrl: testWorker });
    try {
      await Promise.all([reader.read(await stage('SLEEP:1')), reader.read(await stage('SLEEP:1'))]);
      const files = await Promise.all(Array.from({ length: 6 }, () => stage('SLEEP:300')));
      const started = Date.now();
      await Promise.all(files.map((f) => reader.read(f)));
      // Three rounds of 300 ms at the least: a busy machine only makes it longer, so there is no upper bound.
      expect(Date.now() - started).toBeGreaterThanOrEqual(880);
    } finally {
      await reader.close();
    }
  });

  it('answers metadata_busy (503) when the queue is full', async () => {
    const reader = new SafeMetadataReader({ concurrency: 1, maxQueue: 1, workerUrl: testWorker });
    try {
      const file = await stage('SLEEP:300');
      const results = await Promise.allSettled([reader.read(file), reader.read(file), reader.read(file)]);
      expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
      const rejected = results[2] as PromiseRejectedResult;
      expect(rejected.reason).toBeInstanceOf(UnavailableError);
      expect(rejected.reason).toMatchObject({ code: 'metadata_busy' });
    } finally {
      await reader.close();
    }
  });

  it('gives metadata_timeout for a legal file when the budget is smaller than the work', async () => {
    const reader = new SafeMetadataReader({ timeBudgetMs: 1 });
    try {
      await expect(reader.read(await stage(await buildEpub()))).rejects.toMatchObject({ code: 'metadata_timeout' });
    } finally {
      await reader.close();
    }
  });
});
