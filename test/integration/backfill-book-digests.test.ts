import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FsBlobStore } from '../../src/adapters/files/fs-blob-store.js';
import { CryptoSecretGenerator } from '../../src/adapters/identity/crypto-secret-generator.js';
import { createSqliteStore, type SqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';
import { BackfillBookDigests } from '../../src/application/use-cases/backfill-book-digests.js';
import { bookFileKey } from '../../src/domain/book.js';
import { seededBytes } from '../support/fixtures/index.js';
import { aBook } from '../support/kit.js';
import { md5Of, referencePartialMd5OfFile } from '../support/koreader-reference.js';

let dir: string;
let store: SqliteStore;
let blobs: FsBlobStore;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stacks-digest-backfill-'));
  store = createSqliteStore(dir);
  blobs = new FsBlobStore(dir);
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

const idOf = (i: number) => `book-${String(i).padStart(4, '0')}`;

describe('BackfillBookDigests over SQLite and files on disk', () => {
  it('digests 450 stored books in three batches, passes over a missing file, and finds each book by either digest', async () => {
    for (let i = 0; i < 450; i++) {
      const file = seededBytes(i, 1000 + i * 40);
      await store.books.create(aBook({ id: idOf(i), fileName: `Book ${i}.epub`, fileSize: file.length, sha256: md5Of(file).repeat(2) }));
      if (i !== 123) await blobs.putBytes(bookFileKey(idOf(i)), file);
    }
    const backfill = new BackfillBookDigests(store.books, store.digests, blobs, new CryptoSecretGenerator(), 200); // 200, 200, 50
    expect(await backfill.execute()).toEqual({ digested: 449, missingFiles: 1, failed: 0 });
    for (const i of [0, 1, 77, 199, 200, 201, 399, 400, 449]) {
      const partial = referencePartialMd5OfFile(join(dir, 'books', bookFileKey(idOf(i))));
      expect(await store.digests.findBookId(partial), idOf(i)).toBe(idOf(i));
      expect(await store.digests.findBookId(md5Of(`Book ${i}.epub`)), idOf(i)).toBe(idOf(i));
    }
    expect(await store.digests.booksWithoutDigests(null, 10)).toEqual([idOf(123)]);
    expect(await backfill.execute()).toEqual({ digested: 0, missingFiles: 1, failed: 0 });
  });
});
