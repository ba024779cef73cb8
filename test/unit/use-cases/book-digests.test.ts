import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { koreaderDigestsOf } from '../../../src/application/use-cases/book-digests.js';
import { bookFileKey } from '../../../src/domain/book.js';
import { seededBytes } from '../../support/fixtures/index.js';
import { aBookWorld, type BookWorld } from '../../support/kit.js';
import { md5Of, referencePartialMd5OfFile } from '../../support/koreader-reference.js';

const KiB = 1024;
let w: BookWorld;
beforeEach(async () => {
  w = await aBookWorld();
});
afterEach(() => w.cleanup());

async function digestsOfFile(bytes: Buffer, fileName = 'a.epub') {
  const book = { id: `b${bytes.length}`, fileName, fileSize: bytes.length };
  await w.blobs.putBytes(bookFileKey(book.id), bytes);
  return { digests: await koreaderDigestsOf(w.blobs, w.secrets, book), path: join(w.root, 'books', bookFileKey(book.id)) };
}

describe('koreaderDigestsOf', () => {
  it('gives the known MD5 of bytes 0–2047 and 4096–4999 of a 5,000-byte file of bytes i mod 251, and the MD5 of its name', async () => {
    const bytes = Buffer.from(Array.from({ length: 5000 }, (_, i) => i % 251));
    expect(md5Of(Buffer.concat([bytes.subarray(0, 2048), bytes.subarray(4096)]))).toBe('e77dcca7f22a949ae8492c260ca19f32');
    const { digests } = await digestsOfFile(bytes, 'Über Bücher.epub');
    expect(digests).toEqual({ partialMd5: 'e77dcca7f22a949ae8492c260ca19f32', fileNameMd5: md5Of(Buffer.from('Über Bücher.epub', 'utf8')) });
  });

  it('gives the MD5 of nothing for an empty file, as KOReader does', async () => {
    expect((await digestsOfFile(Buffer.alloc(0)))?.digests?.partialMd5).toBe('d41d8cd98f00b204e9800998ecf8427e');
  });

  it('agrees with the reference loop on files either side of every offset up to 4 MiB', async () => {
    const bytes = seededBytes(7, 4 * KiB * KiB + KiB + 2);
    for (let offset = KiB; offset <= 4 * KiB * KiB; offset *= 4) {
      for (const size of [offset - 1, offset, offset + 1, offset + KiB + 1]) {
        const { digests, path } = await digestsOfFile(bytes.subarray(0, size));
        expect(digests?.partialMd5, `size ${size}`).toBe(referencePartialMd5OfFile(path));
      }
    }
  });

  it('reads all twelve samples of a sparse file past 1 GiB', async () => {
    const id = 'sparse';
    const size = KiB ** 3 + 5000;
    await mkdir(join(w.root, 'books'), { recursive: true });
    const handle = await open(join(w.root, 'books', bookFileKey(id)), 'w');
    for (const [i, offset] of [0, KiB, 4 * KiB, 16 * KiB, KiB ** 2, KiB ** 3].entries()) await handle.write(seededBytes(i, 700), 0, 700, offset + 300);
    await handle.truncate(size);
    await handle.close();
    const digests = await koreaderDigestsOf(w.blobs, w.secrets, { id, fileName: 's.pdf', fileSize: size });
    expect(digests?.partialMd5).toBe(referencePartialMd5OfFile(join(w.root, 'books', bookFileKey(id))));
  });

  it('starts at byte 0: files differing only in bytes 0–255 differ, files differing only where no sample reads do not', async () => {
    const base = seededBytes(3, 5000);
    const headChanged = Buffer.from(base);
    headChanged.fill(0, 0, 256);
    const gapChanged = Buffer.from(base);
    gapChanged.fill(0, 2048, 4096);
    const digestOf = async (bytes: Buffer, id: string) => {
      await w.blobs.putBytes(bookFileKey(id), bytes);
      return (await koreaderDigestsOf(w.blobs, w.secrets, { id, fileName: 'x.pdf', fileSize: bytes.length }))?.partialMd5;
    };
    const original = await digestOf(base, 'base');
    expect(await digestOf(headChanged, 'head')).not.toBe(original);
    expect(await digestOf(gapChanged, 'gap')).toBe(original);
  });

  it('is null when the file is missing', async () => {
    expect(await koreaderDigestsOf(w.blobs, w.secrets, { id: 'gone', fileName: 'g.epub', fileSize: 5000 })).toBeNull();
    expect(await koreaderDigestsOf(w.blobs, w.secrets, { id: 'gone', fileName: 'g.epub', fileSize: 0 })).toBeNull();
  });
});
