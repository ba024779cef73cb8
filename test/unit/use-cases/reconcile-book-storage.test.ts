import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { STORAGE_SWEEP_GRACE_MS } from '../../../src/application/use-cases/reconcile-book-storage.js';
import { aBook, aBookWorld, anActor, storeBookWithFiles, textOf, type BookWorld } from '../../support/kit.js';

let w: BookWorld;
beforeEach(async () => {
  w = await aBookWorld();
});
afterEach(() => w.cleanup());

const MINUTE = 60_000;
const bytes = Buffer.from('0123456789abcdefghij');
const storedBook = (id: string) => storeBookWithFiles(w, { id, owner: { id: 'owner-1', username: 'owner-1' } }, bytes, Buffer.from('png'));

/** Sets a file's modification time to `ms` before the world's clock. */
async function age(path: string, ms: number): Promise<void> {
  const at = new Date(w.clock.now().getTime() - ms);
  await utimes(path, at, at);
}
const blob = (key: string) => join(w.root, 'books', key);
const temp = (name: string) => join(w.root, 'tmp', name);

async function aTempFile(name: string, ageMs: number): Promise<void> {
  await mkdir(join(w.root, 'tmp'), { recursive: true });
  await writeFile(temp(name), 'half an upload');
  await age(temp(name), ageMs);
}

async function aBlob(key: string, ageMs: number): Promise<void> {
  await w.blobs.putBytes(key, Buffer.from('x'));
  await age(blob(key), ageMs);
}

describe('ReconcileBookStorage', () => {
  it('removes temp files and record-less blobs older than the grace period, and keeps the rest', async () => {
    const old = STORAGE_SWEEP_GRACE_MS + MINUTE;
    const young = STORAGE_SWEEP_GRACE_MS - MINUTE;
    await storedBook('kept');
    await age(blob('kept.book'), old);
    await aBlob('orphan.book', old);
    await aBlob('orphan.cover', old);
    await aBlob('notes.txt', old);
    await aBlob('pending.book', young);
    await aBlob('pending.cover', 0);
    await aTempFile('crashed.part', old);
    await aTempFile('uploading.part', young);

    expect(await w.reconcileBookStorage.clearTempFiles()).toEqual({ tempFilesRemoved: 1 });
    expect(await w.reconcileBookStorage.execute()).toEqual({ orphanBlobsRemoved: 2, blobsKept: 2 });
    expect(await w.files()).toEqual({
      books: ['kept.book', 'kept.cover', 'notes.txt', 'pending.book', 'pending.cover'],
      tmp: ['uploading.part'],
    });
  });

  it('sweeps a record-less blob once it is past the grace period, not before', async () => {
    await aBlob('late.book', STORAGE_SWEEP_GRACE_MS - MINUTE);
    expect((await w.reconcileBookStorage.execute()).orphanBlobsRemoved).toBe(0);
    w.clock.advance(2 * MINUTE);
    expect((await w.reconcileBookStorage.execute()).orphanBlobsRemoved).toBe(1);
    expect((await w.files()).books).toEqual([]);
  });

  it('leaves the file of an upload that is recorded after the sweep', async () => {
    const staged = await w.staging.stage((async function* () { yield bytes; })(), 1000);
    await w.blobs.putStaged('racing.book', staged);
    await age(blob('racing.book'), MINUTE);
    await w.reconcileBookStorage.execute();
    await w.store.books.create(aBook({ id: 'racing', fileSize: bytes.length }));
    const file = await w.getBookFile.execute(anActor('user', 'reader-1'), 'racing');
    expect(await textOf(await file.open())).toBe(bytes.toString());
  });

  it('checks records for many blobs, in batches, removing exactly the orphans', async () => {
    for (let i = 0; i < 600; i++) await aBlob(`b${i}.book`, STORAGE_SWEEP_GRACE_MS * 2);
    for (let i = 0; i < 600; i += 3) await w.store.books.create(aBook({ id: `b${i}` }));
    expect(await w.reconcileBookStorage.execute()).toEqual({ orphanBlobsRemoved: 400, blobsKept: 200 });
    expect((await w.files()).books).toHaveLength(200);
    expect((await w.files()).books.every((key) => Number(key.slice(1, -5)) % 3 === 0)).toBe(true);
  });
});
