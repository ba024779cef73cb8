import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { aBookWorld, anActor, storeBookWithFiles, type BookWorld } from '../../support/kit.js';

let w: BookWorld;
beforeEach(async () => {
  w = await aBookWorld();
});
afterEach(() => w.cleanup());

const owner = anActor('user', 'owner-1');
const bytes = Buffer.from('0123456789abcdefghij');
const storedBook = (id: string, withCover = true) =>
  storeBookWithFiles(w, { id, owner: { id: 'owner-1', username: 'owner-1' } }, bytes, withCover ? Buffer.from('png') : null);

describe('ReconcileBookStorage', () => {
  it('removes temp files and blobs without a record, and keeps the rest', async () => {
    await storedBook('kept');
    await w.blobs.putBytes('orphan.book', Buffer.from('x'));
    await w.blobs.putBytes('orphan.cover', Buffer.from('x'));
    await w.blobs.putBytes('notes.txt', Buffer.from('not a book key'));
    await w.staging.stage((async function* () { yield Buffer.from('half an upload'); })(), 1000);
    await writeFile(join(w.root, 'tmp', 'crashed.blob'), 'x');

    const report = await w.reconcileBookStorage.execute();
    expect(report).toEqual({ tempFilesRemoved: 2, orphanBlobsRemoved: 2, blobsKept: 3 });
    expect(await w.files()).toEqual({ books: ['kept.book', 'kept.cover', 'notes.txt'], tmp: [] });
    expect(await w.reconcileBookStorage.execute()).toEqual({ tempFilesRemoved: 0, orphanBlobsRemoved: 0, blobsKept: 3 });
  });
});
