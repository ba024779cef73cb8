import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsUploadStaging } from '../../../src/adapters/files/fs-upload-staging.js';
import { TooLargeError } from '../../../src/domain/errors.js';

/** Chunks of `size` bytes filled by a fixed pattern; counts pulls and whether the consumer stopped early. */
function source(chunks: number, size: number, onPull?: (index: number) => void) {
  const state = { pulled: 0, finished: false, returned: false };
  async function* gen() {
    try {
      for (let i = 0; i < chunks; i++) {
        onPull?.(i);
        state.pulled++;
        yield Buffer.alloc(size, i % 251);
      }
      state.finished = true;
    } finally {
      if (!state.finished) state.returned = true;
    }
  }
  return { iterable: gen(), state };
}

function expectedSha(chunks: number, size: number): string {
  const hash = createHash('sha256');
  for (let i = 0; i < chunks; i++) hash.update(Buffer.alloc(size, i % 251));
  return hash.digest('hex');
}

describe('FsUploadStaging', () => {
  let dataDir: string;
  let staging: FsUploadStaging;
  const tmp = () => join(dataDir, 'tmp');
  const tmpFiles = () => readdirSync(tmp());

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'stacks-staging-'));
    staging = new FsUploadStaging(dataDir);
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('stores the bytes and reports their size and SHA-256', async () => {
    const { iterable } = source(10, 1000);
    const staged = await staging.stage(iterable, 1_000_000);
    expect(staged.size).toBe(10_000);
    expect(staged.sha256).toBe(expectedSha(10, 1000));
    expect(createHash('sha256').update(readFileSync(staged.handle)).digest('hex')).toBe(staged.sha256);
  });

  it('stages an empty upload', async () => {
    const staged = await staging.stage(source(0, 1).iterable, 10);
    expect(staged).toMatchObject({ size: 0, sha256: createHash('sha256').digest('hex') });
  });

  it('uses a random server-generated absolute path in the temp dir with mode 0600', async () => {
    const a = await staging.stage(source(1, 10).iterable, 100);
    const b = await staging.stage(source(1, 10).iterable, 100);
    expect(a.handle).not.toBe(b.handle);
    for (const { handle } of [a, b]) {
      expect(handle.startsWith(`${tmp()}/`)).toBe(true);
      expect(handle).toMatch(/\/[0-9a-f]{32}\.part$/);
      expect(statSync(handle).mode & 0o777).toBe(0o600);
    }
  });

  it('accepts exactly maxBytes', async () => {
    expect((await staging.stage(source(4, 25).iterable, 100)).size).toBe(100);
  });

  it('throws TooLargeError at maxBytes + 1, stops reading and keeps nothing', async () => {
    const { iterable, state } = source(1000, 100);
    const limit = 10 * 100 - 1; // the tenth chunk crosses it by one byte
    const error = await staging.stage(iterable, limit).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TooLargeError);
    expect((error as TooLargeError).code).toBe('payload_too_large');
    expect(state.pulled).toBe(10);
    expect(state.returned).toBe(true);
    expect(tmpFiles()).toEqual([]);
  });

  it('deletes the partial file and rethrows when the source fails midway', async () => {
    const boom = new Error('client went away');
    async function* failing() {
      yield Buffer.alloc(64 * 1024, 1);
      yield Buffer.alloc(64 * 1024, 2);
      throw boom;
    }
    await expect(staging.stage(failing(), 10_000_000)).rejects.toBe(boom);
    expect(tmpFiles()).toEqual([]);
  });

  // Memory is bounded by one chunk: nothing is read ahead of the disk. (An RSS bound was tried and
  // dropped: uncollected garbage alone moves RSS by ~35 MB here, so it could not tell right from wrong.)
  it('streams 50 MB one chunk at a time: each chunk is on disk before the next is pulled', async () => {
    const chunk = 64 * 1024;
    const chunks = 800; // 50 MiB
    let behind = 0;
    const { iterable } = source(chunks, chunk, (i) => {
      if (i === 0) return;
      const [name] = tmpFiles();
      if (statSync(join(tmp(), name as string)).size !== i * chunk) behind++;
    });
    const staged = await staging.stage(iterable, 100 * 1024 * 1024);
    expect(behind).toBe(0);
    expect(staged.size).toBe(chunks * chunk);
    expect(staged.sha256).toBe(expectedSha(chunks, chunk));
  });

  it('discards a staged file, and a second discard is harmless', async () => {
    const staged = await staging.stage(source(1, 10).iterable, 100);
    await staging.discard(staged);
    await staging.discard(staged);
    expect(tmpFiles()).toEqual([]);
  });

  it('refuses to discard a path outside its temp dir', async () => {
    const outside = join(dataDir, 'keep-me');
    writeFileSync(outside, 'x');
    await expect(staging.discard({ handle: outside, size: 1, sha256: '' })).rejects.toThrow();
    await expect(staging.discard({ handle: join(tmp(), '..', 'keep-me'), size: 1, sha256: '' })).rejects.toThrow();
    expect(readFileSync(outside, 'utf8')).toBe('x');
  });

  it('clears the temp files last written before the time given and says how many', async () => {
    const cutOff = new Date('2026-11-22T10:00:00.000Z');
    const before = new Date(cutOff.getTime() - 1000);
    expect(await staging.clear(cutOff)).toBe(0); // no temp dir yet
    const first = await staging.stage(source(1, 10).iterable, 100);
    const second = await staging.stage(source(1, 10).iterable, 100);
    writeFileSync(join(tmp(), 'leftover.blob'), 'x');
    for (const path of [first.handle, join(tmp(), 'leftover.blob')]) utimesSync(path, before, before);
    utimesSync(second.handle, cutOff, cutOff);
    expect(await staging.clear(cutOff)).toBe(2);
    expect(tmpFiles()).toEqual([basename(second.handle)]);
    expect(await staging.clear(new Date(cutOff.getTime() + 1))).toBe(1);
    expect(tmpFiles()).toEqual([]);
  });
});
