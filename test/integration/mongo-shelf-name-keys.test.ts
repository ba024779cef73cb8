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

describe('MongoDB shelf name keys at start-up', () => {
  it('recomputes keys stored by the older rule and renames the later of two names that now collide', async () => {
    const first = await createMongoStore(url);
    await first.database.db.collection('shelves').insertMany([
      stored('s1', 'ada', 'STRASSE', 1), stored('s2', 'ada', 'Stra\u00dfe', 2), stored('s3', 'ada', 'Cafe\u0301', 3),
      stored('s4', 'bob', 'Night\u200b Reading', 4), stored('s5', 'ada', 'Plain', 5),
    ] as never[]);
    await first.close();

    store = await createMongoStore(url);
    const rows = await store.database.db.collection('shelves').find({}, { projection: { name: 1, nameKey: 1 } }).sort({ _id: 1 }).toArray();
    expect(rows).toEqual([
      { _id: 's1', name: 'STRASSE', nameKey: 'strasse' },
      { _id: 's2', name: 'Stra\u00dfe (2)', nameKey: 'strasse (2)' },
      { _id: 's3', name: 'Cafe\u0301', nameKey: 'caf\u00e9' },
      { _id: 's4', name: 'Night\u200b Reading', nameKey: 'night reading' },
      { _id: 's5', name: 'Plain', nameKey: 'plain' },
    ]);
  });

  it.skipIf(mongoLimits().uniqueIndexes !== undefined)('then refuses a name that collides by the new rule (a server with unique indexes)', async () => {
    const first = await createMongoStore(url);
    await first.database.db.collection('shelves').insertOne(stored('s1', 'ada', 'Stra\u00dfe', 1) as never);
    await first.close();
    store = await createMongoStore(url);
    await expect(store.shelves.create(aShelf({ owner: { id: 'ada', username: 'ada' }, name: 'STRASSE' }))).rejects.toMatchObject({ code: 'shelf_name_taken' });
  });
});
