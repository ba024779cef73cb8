import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMongoStore, type MongoStore } from '../../src/adapters/mongo/mongo-store.js';
import { aShelf, instant } from '../support/builders.js';
import { mongoLimits, mongoTestServer, stopMongoTestServer } from '../support/mongo-server.js';

const stored = (id: string, ownerId: string, name: string, at: number) => ({
  _id: id, name, nameKey: name.trim().toLowerCase(), description: null, isPublic: false, ownerId, ownerUsername: ownerId,
  createdAt: instant(at), updatedAt: instant(at), nextPosition: 0,
});

let url: string;
let store: MongoStore | undefined;
let databases = 0;
beforeEach(async () => {
  url = (await mongoTestServer()).database(`stacks_shelf_keys_${process.pid}_${++databases}`);
});
afterEach(async () => {
  await store?.database.db.dropDatabase().catch(() => undefined);
  await store?.close();
  store = undefined;
});
afterAll(() => stopMongoTestServer());

/** The housekeeping step that rekeys shelf names (with the index layout), as the lease holder runs it after listening. */
const indexLayout = async (on: MongoStore) => on.housekeeping.find((step) => step.name === 'indexes brought up to date')!.run();

describe('MongoDB shelf name keys, rekeyed once by housekeeping', () => {
  it('recomputes keys stored by the older rule and renames the later of two names that now collide; a later run reads no shelf', async () => {
    const first = await createMongoStore(url);
    await first.database.db.collection('shelves').insertMany([
      stored('s1', 'ada', 'STRASSE', 1), stored('s2', 'ada', 'Stra\u00dfe', 2), stored('s3', 'ada', 'Cafe\u0301', 3),
      stored('s4', 'bob', 'Night\u200b Reading', 4), stored('s5', 'ada', 'Plain', 5),
    ] as never[]);
    await first.close();

    store = await createMongoStore(url);
    expect(await indexLayout(store)).toMatchObject({ shelvesRekeyed: 3 });
    const rows = await store.database.db.collection('shelves').find({}, { projection: { name: 1, nameKey: 1 } }).sort({ _id: 1 }).toArray();
    expect(rows).toEqual([
      { _id: 's1', name: 'STRASSE', nameKey: 'strasse' },
      { _id: 's2', name: 'Stra\u00dfe (2)', nameKey: 'strasse (2)' },
      { _id: 's3', name: 'Cafe\u0301', nameKey: 'caf\u00e9' },
      { _id: 's4', name: 'Night\u200b Reading', nameKey: 'night reading' },
      { _id: 's5', name: 'Plain', nameKey: 'plain' },
    ]);
    // Written with a key of the older rule after the rekeying (no current Stacks writes one): left alone, as no run reads the shelves again.
    await store.database.db.collection('shelves').insertOne(stored('s6', 'ada', 'Gro\u00dfe', 6) as never);
    expect(await indexLayout(store)).toMatchObject({ shelvesRekeyed: 0 });
    expect(await store.database.db.collection('shelves').findOne({ _id: 's6' as never })).toMatchObject({ nameKey: 'gro\u00dfe' });
  });

  it.skipIf(mongoLimits().uniqueIndexes !== undefined)('then refuses a name that collides by the new rule (a server with unique indexes)', async () => {
    const first = await createMongoStore(url);
    await first.database.db.collection('shelves').insertOne(stored('s1', 'ada', 'Stra\u00dfe', 1) as never);
    await first.close();
    store = await createMongoStore(url);
    await indexLayout(store);
    await expect(store.shelves.create(aShelf({ owner: { id: 'ada', username: 'ada' }, name: 'STRASSE' }))).rejects.toMatchObject({ code: 'shelf_name_taken' });
  });
});
