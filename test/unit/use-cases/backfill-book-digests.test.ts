import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsBlobStore } from '../../../src/adapters/files/fs-blob-store.js';
import type { BlobStore, ByteRange } from '../../../src/application/ports.js';
import { BackfillBookDigests } from '../../../src/application/use-cases/backfill-book-digests.js';
import { bookFileKey, type Book } from '../../../src/domain/book.js';
import { seededBytes } from '../../support/fixtures/index.js';
import { aBook, aBookWorld, storeBookWithFiles, type BookWorld } from '../../support/kit.js';
import { md5Of, readingBuffer, referencePartialMd5 } from '../../support/koreader-reference.js';

let w: BookWorld;
beforeEach(async () => {
  w = await aBookWorld();
});
afterEach(() => w.cleanup());

const backfill = (batchSize: number, blobs: BlobStore = w.blobs) => new BackfillBookDigests(w.store.books, w.store.digests, blobs, w.secrets, batchSize);

/** Books b1…bn, each with its own file of a size that crosses a different number of sample offsets. */
async function storeBooks(n: number): Promise<{ book: Book; file: Buffer }[]> {
  const stored = [];
  for (let i = 1; i <= n; i++) {
    const file = seededBytes(i, 900 * i ** 3);
    stored.push({ book: await storeBookWithFiles(w, { id: `b${i}`, fileName: `Book ${i}.epub`, sha256: md5Of(file).padEnd(64, '0') }, file, null), file });
  }
  return stored;
}

async function expectDigested(stored: { book: Book; file: Buffer }[]) {
  for (const { book, file } of stored) {
    expect(await w.store.digests.findBookId(referencePartialMd5(readingBuffer(file))), book.id).toBe(book.id);
    expect(await w.store.digests.findBookId(md5Of(book.fileName)), book.id).toBe(book.id);
  }
}

describe('BackfillBookDigests', () => {
  it('digests every book without digests, batch after batch', async () => {
    const stored = await storeBooks(5);
    expect(await backfill(2).execute()).toEqual({ digested: 5, missingFiles: 0, failed: 0 });
    await expectDigested(stored);
    expect(await w.store.digests.booksWithoutDigests(null, 10)).toEqual([]);
  });

  it('is idempotent and leaves books that already have digests alone', async () => {
    const stored = await storeBooks(3);
    const kept = { partialMd5: 'a'.repeat(32), fileNameMd5: 'b'.repeat(32) };
    await w.store.digests.put('b2', kept);
    expect(await backfill(2).execute()).toEqual({ digested: 2, missingFiles: 0, failed: 0 });
    expect(await w.store.digests.findBookId(kept.partialMd5)).toBe('b2');
    await expectDigested([stored[0]!, stored[2]!]);
    expect(await backfill(2).execute()).toEqual({ digested: 0, missingFiles: 0, failed: 0 });
  });

  it('passes over a book whose file is missing, counts it, and tries it again on the next run', async () => {
    const stored = await storeBooks(4);
    await w.store.books.create(aBook({ id: 'b2a', fileName: 'Lost.epub', fileSize: 5000 }));
    expect(await backfill(2).execute()).toEqual({ digested: 4, missingFiles: 1, failed: 0 });
    await expectDigested(stored);
    expect(await w.store.digests.booksWithoutDigests(null, 10)).toEqual(['b2a']);
    await w.blobs.putBytes(bookFileKey('b2a'), seededBytes(99, 5000));
    expect(await backfill(2).execute()).toEqual({ digested: 1, missingFiles: 0, failed: 0 });
    expect(await w.store.digests.findBookId(referencePartialMd5(readingBuffer(seededBytes(99, 5000))))).toBe('b2a');
  });

  it('counts a book whose file cannot be read as failed and goes on with the rest', async () => {
    class BrokenFor extends FsBlobStore {
      override async readSpans(key: string, ranges: readonly ByteRange[]) {
        if (key === bookFileKey('b3')) throw new Error('I/O error');
        return super.readSpans(key, ranges);
      }
    }
    const stored = await storeBooks(5);
    expect(await backfill(2, new BrokenFor(w.root)).execute()).toEqual({ digested: 4, missingFiles: 0, failed: 1 });
    await expectDigested(stored.filter(({ book }) => book.id !== 'b3'));
    expect(await w.store.digests.booksWithoutDigests(null, 10)).toEqual(['b3']);
  });

  it('counts a batch whose digests cannot be stored as failed, and still ends', async () => {
    await storeBooks(3);
    const down = Object.assign(Object.create(w.store.digests) as typeof w.store.digests, {
      putMany: () => Promise.reject(new Error('store down')),
    });
    const report = await new BackfillBookDigests(w.store.books, down, w.blobs, w.secrets, 2).execute();
    expect(report).toEqual({ digested: 0, missingFiles: 0, failed: 3 });
    expect(await w.store.digests.booksWithoutDigests(null, 10)).toEqual(['b1', 'b2', 'b3']);
  });

  it('does nothing in an empty library', async () => {
    expect(await backfill(200).execute()).toEqual({ digested: 0, missingFiles: 0, failed: 0 });
  });
});
