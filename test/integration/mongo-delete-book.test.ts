import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMongoStore, type MongoStore } from '../../src/adapters/mongo/mongo-store.js';
import { Authority } from '../../src/application/use-cases/authority.js';
import { DeleteBook } from '../../src/application/use-cases/delete-book.js';
import { anActor, FakeClock } from '../support/kit.js';
import { aBook, aUser } from '../support/builders.js';
import { mongoTestServer, stopMongoTestServer } from '../support/mongo-server.js';

let store: MongoStore;
let databases = 0;
beforeEach(async () => {
  store = await createMongoStore((await mongoTestServer()).database(`stacks_delete_book_${process.pid}_${++databases}`));
});
afterEach(async () => {
  await store.database.db.dropDatabase().catch(() => undefined);
  await store.close();
});
afterAll(() => stopMongoTestServer());

describe('DeleteBook on MongoDB, which has no foreign keys to cascade', () => {
  it('forgets the book\'s reading progress and KOReader digests with it, and keeps other books\'', async () => {
    const owner = anActor('user', 'owner-1');
    await store.users.create(aUser({ id: 'owner-1', username: 'owner-1', email: 'owner@example.test' }));
    for (const id of ['gone', 'stays']) {
      await store.books.create(aBook({ id, sha256: id.padEnd(64, '0'), owner: { id: 'owner-1', username: 'owner-1' } }));
      await store.digests.put(id, { partialMd5: `${id}-partial`, fileNameMd5: `${id}-name` });
      await store.progress.put({ userId: 'owner-1', bookId: id, status: 'reading', percentage: 0.5, locator: null, device: null, deviceId: null, updatedAt: new Date(0) });
    }
    const authority = new Authority(store.users, store.apiKeys, new FakeClock(), store.koboDevices);
    await new DeleteBook(store.books, store.shelves, store.blobs, new FakeClock(), store.progress, store.digests, authority).execute(owner, 'gone');
    expect(await store.digests.findBookId('gone-partial')).toBeNull();
    expect(await store.digests.findBookId('gone-name')).toBeNull();
    expect(await store.progress.get('owner-1', 'gone')).toBeNull();
    expect(await store.digests.findBookId('stays-partial')).toBe('stays');
    expect(await store.progress.get('owner-1', 'stays')).toMatchObject({ percentage: 0.5 });
  });
});
