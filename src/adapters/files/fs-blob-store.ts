import { randomBytes } from 'node:crypto';
import { mkdir, open, opendir, rename, rm, stat, unlink, utimes } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { BlobStore, ByteRange, StagedFile } from '../../application/ports.js';
import { assertReadableSpans } from '../../domain/byte-range.js';
import { stagingDir } from './fs-upload-staging.js';

const KEY_PATTERN = /^[A-Za-z0-9._-]{1,128}$/;

const isMissing = (e: unknown) => (e as NodeJS.ErrnoException).code === 'ENOENT';

/** Server-generated keys only: a plain file name, never `.`/`..` or a dot file (client names never get here). */
function assertKey(key: string): void {
  if (typeof key !== 'string' || !KEY_PATTERN.test(key) || key.startsWith('.')) {
    throw new RangeError(`invalid blob key ${JSON.stringify(String(key).slice(0, 140))}`);
  }
}

/** Flushes a directory entry change (create, rename, unlink) to disk. */
async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Book files and covers in `<dataDir>/books/<key>`. Every write is temp file → fsync → rename →
 * fsync(dir); temp files live in the staging directory so the start-up sweep removes leftovers.
 * A blob's modification time is stamped from this process's clock when it is stored (as GridFS's
 * uploadDate is by the driver), so `keys(olderThan)` compares times from the clock the cutoff came from.
 */
export class FsBlobStore implements BlobStore {
  private readonly dir: string;
  private readonly tempDir: string;
  private ready: Promise<void> | null = null;

  constructor(dataDir: string) {
    this.dir = resolve(dataDir, 'books');
    this.tempDir = stagingDir(dataDir);
  }

  async putStaged(key: string, file: StagedFile): Promise<void> {
    assertKey(key);
    if (dirname(resolve(file.handle)) !== this.tempDir) throw new Error('not a staged file of this data directory');
    await this.ensureDirs();
    const now = new Date();
    await utimes(file.handle, now, now);
    await rename(file.handle, this.path(key));
    await fsyncDir(this.dir);
  }

  async putBytes(key: string, data: Uint8Array): Promise<void> {
    assertKey(key);
    await this.ensureDirs();
    const temp = join(this.tempDir, `${randomBytes(16).toString('hex')}.blob`);
    try {
      const handle = await open(temp, 'wx', 0o600);
      try {
        await handle.writeFile(data);
        const now = new Date();
        await handle.utimes(now, now);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(temp, this.path(key));
    } catch (error) {
      await rm(temp, { force: true });
      throw error;
    }
    await fsyncDir(this.dir);
  }

  async read(key: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | null> {
    assertKey(key);
    if (range && !(Number.isSafeInteger(range.start) && Number.isSafeInteger(range.end) && range.start >= 0 && range.end >= range.start)) {
      throw new RangeError('invalid byte range');
    }
    try {
      // Opened first so absence is known now; the stream closes the handle when done or destroyed.
      const handle = await open(this.path(key), 'r');
      return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
  }

  async readSpans(key: string, ranges: readonly ByteRange[]): Promise<Uint8Array[] | null> {
    assertKey(key);
    assertReadableSpans(ranges);
    let handle;
    try {
      handle = await open(this.path(key), 'r');
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
    try {
      const spans: Uint8Array[] = [];
      for (const { start, end } of ranges) {
        const buffer = Buffer.alloc(end - start + 1);
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, start);
        spans.push(buffer.subarray(0, bytesRead));
      }
      return spans;
    } finally {
      await handle.close();
    }
  }

  async size(key: string): Promise<number | null> {
    assertKey(key);
    try {
      return (await stat(this.path(key))).size;
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
  }

  async delete(key: string): Promise<void> {
    assertKey(key);
    try {
      await unlink(this.path(key));
    } catch (e) {
      if (isMissing(e)) return;
      throw e;
    }
    await fsyncDir(this.dir);
  }

  /** Keys of files last modified before olderThan (a rename keeps the staged file's time: its last write). */
  async *keys(olderThan: Date): AsyncIterable<string> {
    let dir;
    try {
      dir = await opendir(this.dir);
    } catch (e) {
      if (isMissing(e)) return;
      throw e;
    }
    for await (const entry of dir) {
      if (!entry.isFile() || !KEY_PATTERN.test(entry.name) || entry.name.startsWith('.')) continue;
      const modified = await stat(join(this.dir, entry.name)).then((s) => s.mtimeMs, (e: unknown) => (isMissing(e) ? null : Promise.reject(e)));
      if (modified !== null && modified < olderThan.getTime()) yield entry.name;
    }
  }

  private path(key: string): string {
    return join(this.dir, key);
  }

  /** Creates the directories once, on first write; tried again after a failure. */
  private ensureDirs(): Promise<void> {
    this.ready ??= this.createDirs().catch((e: unknown) => {
      this.ready = null;
      throw e;
    });
    return this.ready;
  }

  private async createDirs(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    await mkdir(this.tempDir, { recursive: true, mode: 0o700 });
    await fsyncDir(dirname(this.dir));
  }
}
