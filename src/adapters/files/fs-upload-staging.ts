import { createHash, randomBytes } from 'node:crypto';
import { lstat, mkdir, open, readdir, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { StagedFile, UploadStaging } from '../../application/ports.js';
import { payloadTooLarge } from '../../domain/error-catalogue.js';

/** The staging directory under a data directory; FsBlobStore renames out of it (same file system). */
export function stagingDir(dataDir: string): string {
  return resolve(dataDir, 'tmp');
}

/** Streams uploads into `<dataDir>/tmp` (random name, O_EXCL, 0600) while hashing, within a size limit. */
export class FsUploadStaging implements UploadStaging {
  private readonly dir: string;

  constructor(dataDir: string) {
    this.dir = stagingDir(dataDir);
  }

  async stage(source: AsyncIterable<Uint8Array>, maxBytes: number): Promise<StagedFile> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const handle = join(this.dir, `${randomBytes(16).toString('hex')}.part`);
    const file = await open(handle, 'wx', 0o600);
    const hash = createHash('sha256');
    let size = 0;
    try {
      // One chunk at a time: the next is pulled only after this one is on disk (backpressure).
      for await (const chunk of source) {
        size += chunk.byteLength;
        if (size > maxBytes) throw payloadTooLarge(maxBytes);
        hash.update(chunk);
        for (let offset = 0; offset < chunk.byteLength; ) {
          offset += (await file.write(chunk, offset, chunk.byteLength - offset)).bytesWritten;
        }
      }
      await file.sync();
      await file.close();
    } catch (error) {
      await file.close().catch(() => undefined);
      await rm(handle, { force: true });
      throw error;
    }
    return { handle, size, sha256: hash.digest('hex') };
  }

  async discard(file: StagedFile): Promise<void> {
    this.assertOwn(file.handle);
    await rm(file.handle, { force: true });
  }

  /** Removes entries last modified before olderThan: younger ones may be uploads still being written. */
  async clear(olderThan: Date): Promise<number> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw e;
    }
    const old = await Promise.all(names.map(async (name) => {
      const modified = await lstat(join(this.dir, name)).then((s) => s.mtimeMs, () => null);
      return modified !== null && modified < olderThan.getTime() ? name : null;
    }));
    const removed = old.filter((name): name is string => name !== null);
    await Promise.all(removed.map((name) => rm(join(this.dir, name), { recursive: true, force: true })));
    return removed.length;
  }

  private assertOwn(handle: string): void {
    if (dirname(resolve(handle)) !== this.dir) throw new Error('not a staged file of this staging area');
  }
}
