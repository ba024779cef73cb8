import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { backfillChangeFeed } from '../../../src/adapters/mongo/mongo-change-feed-backfill.js';
import { createMongoStore, type MongoStore } from '../../../src/adapters/mongo/mongo-store.js';
import { aBook, aShelf, aUser, instant } from '../../support/builders.js';
import { MONGO_SERVER_NAMES, mongoServerKind, mongoTestServer } from '../../support/mongo-server.js';

let databases = 0;

describe(`MongoDB: the change feed backfill of shelves, shelf entries and reading states (${MONGO_SERVER_NAMES[mongoServerKind()]})`, () => {
  let store: MongoStore;
  beforeEach(async () => {
    store = await createMongoStore((await mongoTestServer()).database(`stacks_feed_backfill_${process.pid}_${++databases}`));
  }, 60_000);
  afterEach(async () => {
    await store.database.db.dropDatabase().catch(() => undefined);
    await store.close();
  });

  it('gives what was stored before the feed its entries, once, and leaves entries already there alone', async () => {
    await store.users.create(aUser({ id: 'u1', username: 'u1', email: 'u1@example.test' }));
    for (const id of ['b1', 'b2']) await store.books.create(aBook({ id }));
    await store.shelves.create(aShelf({ id: 's1', owner: { id: 'u1', username: 'u1' }, bookIds: ['b1', 'b2'] }));
    await store.progress.put({ userId: 'u1', bookId: 'b2', status: 'reading', percentage: 0.5, locator: null, device: null, deviceId: null, updatedAt: instant(1) });
    await store.changes.record([{ kind: 'member', entityId: 's1/b1', groupId: 's1', removed: false }], instant(0));
    const [kept] = await store.changes.since('member', ['s1'], 0, 10);
    expect(await backfillChangeFeed(store.database.db, store.changes)).toEqual({ shelves: 1, members: 1, progress: 1 });
    expect((await store.changes.since('shelf', ['u1'], 0, 10)).map((c) => c.entityId)).toEqual(['s1']);
    expect((await store.changes.since('member', ['s1'], 0, 10)).map((c) => [c.entityId, c.seq])).toEqual([['s1/b1', kept!.seq], ['s1/b2', expect.any(Number)]]);
    expect((await store.changes.since('progress', ['u1'], 0, 10)).map((c) => c.entityId)).toEqual(['u1/b2']);
    expect(await backfillChangeFeed(store.database.db, store.changes)).toEqual({ shelves: 0, members: 0, progress: 0 });
  });
});
