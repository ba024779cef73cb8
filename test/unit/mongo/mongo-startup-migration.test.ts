import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoClient, type Db } from 'mongodb';
import { pino } from 'pino';
import { toBookDocument } from '../../../src/adapters/mongo/mongo-book-documents.js';
import { MongoBookRepository } from '../../../src/adapters/mongo/mongo-book-repository.js';
import { MIGRATION_BATCH } from '../../../src/adapters/mongo/mongo-library-migration.js';
import { SEARCH_GRAMS_VERSION } from '../../../src/domain/book-search-grams.js';
import { createMongoStore } from '../../../src/adapters/mongo/mongo-store.js';
import { loadConfig } from '../../../src/bootstrap/config.js';
import { startStacks, type RunningStacks } from '../../../src/bootstrap/server.js';
import { aBook } from '../../support/builders.js';
import { MONGO_SERVER_NAMES, mongoServerKind, mongoTestServer } from '../../support/mongo-server.js';
import { until } from '../../support/until.js';

const LEGACY_BOOKS = MIGRATION_BATCH * 2 + 7;
const quiet = pino({ level: 'silent' });
let url: string;
let client: MongoClient;
let db: Db;
const running: RunningStacks[] = [];

const start = async () => {
  const config = loadConfig({ DATABASE_URL: url, JWT_SECRET: 'start-up-migration-secret-0123456789-0123456789', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' });
  const instance = await startStacks(config, quiet);
  running.push(instance);
  return instance;
};
/**
 * Waits until the instance answers /readyz 200: its readiness probe (a majority write) can take longer
 * than the probe's own bound on a loaded machine and answer 503 meanwhile; only the test's timeout ends it.
 */
const ready = (instance: RunningStacks) => until(async () => (await fetch(`http://127.0.0.1:${instance.port}/readyz`)).status === 200);
const waitingForGrams = () => db.collection('books').countDocuments({ searchGramsVersion: { $ne: SEARCH_GRAMS_VERSION } });
/** `EEDLE` (three-character grams) and `DL` (a two-character run) each find only the needle. */
const searchNeedle = async (books: MongoBookRepository) => {
  const found = await Promise.all(['EEDLE', 'DL'].map((q) => books.search({ q, page: 1, pageSize: 10, sort: { field: 'title', descending: false } })));
  return found.map((page) => page.items.map((b) => b.id));
};

beforeAll(async () => {
  url = (await mongoTestServer()).database(`stacks_startup_migration_${process.pid}`);
  await (await createMongoStore(url)).close();
  client = new MongoClient(url);
  await client.connect();
  db = client.db();
  const legacy = Array.from({ length: LEGACY_BOOKS }, (_, i) => {
    const { searchTokens: _dropped, searchGramsVersion: _unmarked, ...document } = toBookDocument(aBook({ id: `old-${i}`, title: i === 3 ? 'Needle in a haystack' : `Hay ${i}` }));
    return document;
  });
  await db.collection('books').insertMany(legacy as never[]);
}, 600_000);
afterAll(async () => {
  for (const instance of running) await instance.close();
  await db?.dropDatabase().catch(() => undefined);
  await client?.close();
});

describe(`Mongo start-up with ${LEGACY_BOOKS} books waiting for their search grams (${MONGO_SERVER_NAMES[mongoServerKind()]})`, () => {
  it('answers /readyz before the backfill has run and finds the waiting books by q meanwhile; the backfill completes afterwards, under the lease', async () => {
    // Another instance holds the backfill's lease: this one listens and serves, and leaves the backfill to it.
    const backfillLease = 'housekeeping:search grams backfilled';
    await db.collection('leases').insertOne({ _id: backfillLease as never, holder: 'another-instance', expiresAt: new Date(Date.now() + 3_600_000) });
    const first = await start();
    await ready(first);
    expect(await first.housekeeping).toMatchObject({ heldElsewhere: ['search grams backfilled'], failed: [] });
    expect(await waitingForGrams()).toBe(LEGACY_BOOKS);
    const books = new MongoBookRepository(db);
    expect(await searchNeedle(books)).toEqual([['old-3'], ['old-3']]);

    await db.collection('leases').deleteOne({ _id: backfillLease as never });
    const second = await start();
    await ready(second);
    expect(await second.housekeeping).toMatchObject({ heldElsewhere: [], failed: [] });
    expect(await waitingForGrams()).toBe(0);
    expect(await searchNeedle(books)).toEqual([['old-3'], ['old-3']]);
    expect(await searchNeedle(new MongoBookRepository(db))).toEqual([['old-3'], ['old-3']]);
  }, 900_000);
});
