import { createHash } from 'node:crypto';
import { openSync, closeSync, readSync } from 'node:fs';

/** Reads up to `length` bytes at `offset`; fewer at the end of the data, none past it. */
export type ReadAt = (offset: number, length: number) => Buffer;

/**
 * KOReader's `util.partialMD5`, written out as its Lua loop reads, independently of Stacks' code:
 * for i = -1 … 10 seek to 1024·4^i (the i = -1 seek lands on 0 under LuaJIT), read up to 1,024
 * bytes, stop at the first empty read.
 */
export function referencePartialMd5(readAt: ReadAt): string {
  const md5 = createHash('md5');
  for (let i = -1; i <= 10; i++) {
    const offset = i === -1 ? 0 : 1024 * 4 ** i;
    const sample = readAt(offset, 1024);
    if (sample.length === 0) break;
    md5.update(sample);
  }
  return md5.digest('hex');
}

/** ReadAt over bytes in memory. */
export const readingBuffer = (bytes: Buffer): ReadAt => (offset, length) => bytes.subarray(offset, offset + length);

/** referencePartialMd5 of a file on disk, by positional reads. */
export function referencePartialMd5OfFile(path: string): string {
  const fd = openSync(path, 'r');
  try {
    return referencePartialMd5((offset, length) => {
      const buffer = Buffer.alloc(length);
      return buffer.subarray(0, readSync(fd, buffer, 0, length, offset));
    });
  } finally {
    closeSync(fd);
  }
}

export const md5Of = (value: string | Buffer): string => createHash('md5').update(value).digest('hex');
