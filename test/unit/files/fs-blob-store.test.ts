import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsBlobStore } from '../../../src/adapters/files/fs-blob-store.js';
import { FsUploadStaging } from '../../../src/adapters/files/fs-upload-staging.js';

async function collect(stream: AsyncIterable<Uint8Array> | null): Promise<Buffer | null> {
  if (stream === null) return null;
  const parts: Uint8Array[] = [];
  for await (const part of stream) parts.push(part);
  return Buffer.concat(parts);
}

async function* once(data: Uint8Array) {
  yield data;
}

const INVALID_KEYS = ['', '.', '..', '../x', 'a/b', 'a\\b', '/etc/passwd', '.hidden', 'a\u0000b', 'livre-é.book', 'x'.repeat(129), 'a b'];

describe('FsBlobStore', () => {
  let dataDir: string;
  let store: FsBlobStore;
  let staging: FsUploadStaging;
  const books = () => join(dataDir, 'books');
  const tempFiles = () => readdirSync(join(dataDir, 'tmp'));

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'stacks-blobs-'));
    store = new FsBlobStore(dataDir);
    staging = new FsUploadStaging(dataDir);
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('creates nothing until the first write', async () => {
    expect(await store.read('a.book')).toBeNull();
    expect(await store.size('a.book')).toBeNull();
    await store.delete('a.book');
    expect(existsSync(books())).toBe(false);
    await store.putBytes('a.cover', Buffer.from('x'));
    expect(statSync(books()).isDirectory()).toBe(true);
  });

  it('moves a staged file under its key and leaves no temp file', async () => {
    const data = Buffer.alloc(300_000, 7);
    const staged = await staging.stage(once(data), 1_000_000);
    await store.putStaged('b1.book', staged);
    expect(existsSync(staged.handle)).toBe(false);
    expect(await collect(await store.read('b1.book'))).toEqual(data);
    expect(await store.size('b1.book')).toBe(300_000);
    expect(tempFiles()).toEqual([]);
  });

  it('refuses a staged handle outside the staging directory', async () => {
    const outside = join(dataDir, 'elsewhere');
    writeFileSync(outside, 'x');
    await expect(store.putStaged('b.book', { handle: outside, size: 1, sha256: '' })).rejects.toThrow();
    expect(existsSync(outside)).toBe(true);
    expect(await store.size('b.book')).toBeNull();
  });

  it('stores bytes, replaces them on a second put, and leaves no temp file', async () => {
    await store.putBytes('c.cover', Buffer.from('first'));
    await store.putBytes('c.cover', Buffer.from('second'));
    expect((await collect(await store.read('c.cover')))?.toString()).toBe('second');
    expect(statSync(join(books(), 'c.cover')).mode & 0o777).toBe(0o600);
    expect(tempFiles()).toEqual([]);
    expect(readdirSync(books())).toEqual(['c.cover']);
  });

  it('replaces atomically: concurrent readers see the old or the new blob, whole', async () => {
    const size = 2 * 1024 * 1024;
    await store.putBytes('d.book', Buffer.alloc(size, 'a'));
    const writes = Promise.all([store.putBytes('d.book', Buffer.alloc(size, 'b')), store.putBytes('d.book', Buffer.alloc(size, 'c'))]);
    const reads = Array.from({ length: 30 }, async () => collect(await store.read('d.book')));
    const seen = await Promise.all(reads);
    await writes;
    for (const blob of seen) {
      expect(blob).toHaveLength(size);
      expect(['a', 'b', 'c']).toContain(String.fromCharCode(blob![0]!));
      expect(blob!.every((byte) => byte === blob![0])).toBe(true);
    }
  });

  it('reads inclusive byte ranges', async () => {
    await store.putBytes('e.book', Buffer.from('0123456789'));
    expect((await collect(await store.read('e.book', { start: 0, end: 0 })))?.toString()).toBe('0');
    expect((await collect(await store.read('e.book', { start: 2, end: 5 })))?.toString()).toBe('2345');
    expect((await collect(await store.read('e.book', { start: 7, end: 9 })))?.toString()).toBe('789');
    expect((await collect(await store.read('e.book', { start: 8, end: 100 })))?.toString()).toBe('89');
    await expect(store.read('e.book', { start: 5, end: 4 })).rejects.toThrow(RangeError);
    await expect(store.read('e.book', { start: -1, end: 4 })).rejects.toThrow(RangeError);
  });

  it('deletes, and deleting again is harmless', async () => {
    await store.putBytes('f.cover', Buffer.from('x'));
    await store.delete('f.cover');
    await store.delete('f.cover');
    expect(await store.read('f.cover')).toBeNull();
    expect(await store.size('f.cover')).toBeNull();
  });

  it.each(INVALID_KEYS)('rejects the key %j on every operation', async (key) => {
    await store.putBytes('ok.book', Buffer.from('x'));
    const staged = await staging.stage(once(Buffer.from('y')), 10);
    await expect(store.putBytes(key, Buffer.from('x'))).rejects.toThrow(RangeError);
    await expect(store.putStaged(key, staged)).rejects.toThrow(RangeError);
    await expect(store.read(key)).rejects.toThrow(RangeError);
    await expect(store.size(key)).rejects.toThrow(RangeError);
    await expect(store.delete(key)).rejects.toThrow(RangeError);
    expect(existsSync(staged.handle)).toBe(true);
    expect(readdirSync(books())).toEqual(['ok.book']);
    expect(readdirSync(dataDir).sort()).toEqual(['books', 'tmp']);
  });

  it('lists stored keys last written before the time given, and skips anything that is not a blob', async () => {
    const cutOff = new Date('2026-11-22T10:00:00.000Z');
    const keysBefore = async (at: Date) => {
      const listed: string[] = [];
      for await (const key of store.keys(at)) listed.push(key);
      return listed.sort();
    };
    expect(await keysBefore(cutOff)).toEqual([]);
    for (const key of ['k1.book', 'k1.cover', 'K2_x-y.book', 'young.book']) await store.putBytes(key, Buffer.from(key));
    for (const key of ['k1.book', 'k1.cover', 'K2_x-y.book']) utimesSync(join(books(), key), new Date(cutOff.getTime() - 1000), new Date(cutOff.getTime() - 1000));
    utimesSync(join(books(), 'young.book'), cutOff, cutOff);
    writeFileSync(join(books(), '.stray.tmp'), 'x');
    mkdirSync(join(books(), 'subdir'));
    expect(await keysBefore(cutOff)).toEqual(['K2_x-y.book', 'k1.book', 'k1.cover']);
  });
});
