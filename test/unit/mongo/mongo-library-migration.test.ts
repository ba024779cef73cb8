import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MongoClient, MongoServerError, type Db } from 'mongodb';
import { toBookDocument } from '../../../src/adapters/mongo/mongo-book-documents.js';
import { SEARCH_GRAMS_VERSION, searchGrams } from '../../../src/domain/book-search-grams.js';
import { MongoBookRepository } from '../../../src/adapters/mongo/mongo-book-repository.js';
import { backfillSearchTokens, MIGRATION_BATCH } from '../../../src/adapters/mongo/mongo-library-migration.js';
import { bringIndexesUpToDate } from '../../../src/adapters/mongo/mongo-index-layout.js';
import { MongoShelfRepository } from '../../../src/adapters/mongo/mongo-shelf-repository.js';
import { aBook, aShelf } from '../../support/builders.js';
import { SCHEMA_VERSION } from '../../../src/adapters/mongo/mongo-housekeeping-indexes.js';
import { createMongoStore } from '../../../src/adapters/mongo/mongo-store.js';
import { interceptFirstCall } from '../../support/mongo-intercept.js';
import { mongoTestServer } from '../../support/mongo-server.js';

let databases = 0;

/** What housekeeping does after an upgrade: the index layout, then the search grams. */
const migrateLibrary = async (db: Db) => {
  await bringIndexesUpToDate(db);
  await backfillSearchTokens(db);
};

describe('Mongo start-up migration of the library collections', () => {
  let client: MongoClient;
  let db: Db;
  let url: string;
  beforeEach(async () => {
    url = (await mongoTestServer()).database(`stacks_migration_${process.pid}_${++databases}`);
    client = new MongoClient(url);
    await client.connect();
    db = client.db();
  });
  afterEach(async () => {
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  });

  it(`gives books stored before search grams existed their grams, in batches of ${MIGRATION_BATCH}, so q finds them`, async () => {
    const legacy = Array.from({ length: MIGRATION_BATCH + 7 }, (_, i) => {
      const { searchTokens: _dropped, searchGramsVersion: _unmarked, ...document } = toBookDocument(aBook({ id: `old-${i}`, title: i === 3 ? 'Needle in a haystack' : `Hay ${i}` }));
      return document;
    });
    await db.collection('books').insertMany(legacy as never[]);
    await migrateLibrary(db);
    expect(await db.collection('books').countDocuments({ searchGramsVersion: { $ne: SEARCH_GRAMS_VERSION } })).toBe(0);
    const found = await new MongoBookRepository(db).search({ q: 'EEDLE', page: 1, pageSize: 10, sort: { field: 'title', descending: false } });
    expect(found.items.map((b) => b.id)).toEqual(['old-3']);
  });

  it('re-grams a book whose grams version 1 wrote (three-character runs only): a 2-character q finds it by the search text before, by its grams after', async () => {
    const { searchGramsVersion: _unmarked, ...current } = toBookDocument(aBook({ id: 'v1', title: 'Go', authors: ['Ann Leckie'] }));
    const threeOnly = searchGrams(current.searchText).filter((gram) => Array.from(gram).length === 3);
    await db.collection('books').insertMany([{ ...current, searchTokens: threeOnly }, toBookDocument(aBook({ id: 'v2', title: 'Stop' }))] as never[]);
    const books = new MongoBookRepository(db);
    const byShortQuery = async () => (await books.search({ q: 'GO', page: 1, pageSize: 10, sort: { field: 'title', descending: false } })).items.map((b) => b.id);
    expect(await byShortQuery()).toEqual(['v1']);

    await migrateLibrary(db);
    const stored = await db.collection('books').findOne({ _id: 'v1' as never });
    expect(stored?.searchGramsVersion).toBe(SEARCH_GRAMS_VERSION);
    expect(stored?.searchTokens).toEqual(expect.arrayContaining(['go', 'g', 'o', 'ann', 'an', 'le']));
    // The search text no longer says "go": only the grams can still find the book now.
    await db.collection('books').updateOne({ _id: 'v1' as never }, { $set: { searchText: 'elsewhere' } });
    expect(await byShortQuery()).toEqual(['v1']);
    expect(await new MongoBookRepository(db).search({ q: 'op', page: 1, pageSize: 10, sort: { field: 'title', descending: false } })
      .then((page) => page.items.map((b) => b.id))).toEqual(['v2']);
  });

  it('renumbers shelves whose books share a position, keeping (position, book id) order, and drops the indexes it replaces', async () => {
    const members = db.collection('shelf_books');
    await members.createIndex({ shelfId: 1, position: 1 }, { name: 'shelf_books_position' });
    await db.collection('books').insertMany(['b1', 'b2', 'b3', 'b4'].map((id) => toBookDocument(aBook({ id }))) as never[]);
    const shelf = aShelf({ id: 's1' });
    await db.collection('shelves').insertOne({ _id: shelf.id as never, name: shelf.name, nameKey: 'n', description: null, isPublic: false,
      ownerId: 'o', ownerUsername: 'o', createdAt: shelf.createdAt, updatedAt: shelf.updatedAt, nextPosition: 2 });
    await members.insertMany([
      { _id: '["s1","b3"]' as never, shelfId: 's1', bookId: 'b3', position: 1 },
      { _id: '["s1","b1"]' as never, shelfId: 's1', bookId: 'b1', position: 1 },
      { _id: '["s1","b2"]' as never, shelfId: 's1', bookId: 'b2', position: 2 },
    ]);
    await migrateLibrary(db);
    const positions = await members.find({ shelfId: 's1' }).sort({ position: 1 }).toArray();
    expect(positions.map((m) => [m.bookId, m.position])).toEqual([['b1', 1], ['b3', 2], ['b2', 3]]);
    const names = (await members.listIndexes().toArray()).map((i) => i.name);
    expect(names).not.toContain('shelf_books_position');
    expect(names).toContain('shelf_books_slot');
    const shelves = new MongoShelfRepository(db);
    expect(await shelves.addBook('s1', 'b4', shelf.updatedAt)).toBe(true);
    expect((await shelves.findById('s1'))?.bookIds).toEqual(['b1', 'b3', 'b2', 'b4']);
    expect((await members.findOne({ bookId: 'b4' }))?.position).toBe(4);
  });

  /** Shelf s1 as an earlier version left it (the non-unique position index), its books b1, b2... at these positions. */
  const olderShelf = async (...positions: number[]) => {
    const members = db.collection('shelf_books');
    await members.createIndex({ shelfId: 1, position: 1 }, { name: 'shelf_books_position' });
    await members.insertMany(positions.map((position, i) => ({ _id: `["s1","b${i + 1}"]` as never, shelfId: 's1', bookId: `b${i + 1}`, position })));
    return members;
  };
  /** The unique slot index's build failing on a clash, as a server enforcing it reports one. */
  const slotClash = () => new MongoServerError({ ok: 0, code: 11000, codeName: 'DuplicateKey', errmsg: 'E11000 duplicate key error', keyPattern: { shelfId: 1, position: 1 } });

  it('renumbers again and builds the slot index when an older instance writes a clashing position in between (synthesised build failure)', async () => {
    const members = await olderShelf(1, 1);
    const clashWrittenMeanwhile = async (): Promise<never> => {
      await members.insertOne({ _id: '["s1","b3"]' as never, shelfId: 's1', bookId: 'b3', position: 1 });
      throw slotClash();
    };
    const report = await bringIndexesUpToDate(interceptFirstCall(db, 'shelf_books', 'createIndexes', clashWrittenMeanwhile));
    expect(report.shelvesRenumbered).toBe(2);
    const positions = await members.find({ shelfId: 's1' }).sort({ position: 1 }).toArray();
    expect(positions.map((m) => [m.bookId, m.position])).toEqual([['b1', 1], ['b3', 2], ['b2', 3]]);
  });

  it('keeps the index the slot index replaces until the slot index is built, so a later run renumbers again', async () => {
    const members = await olderShelf(1, 2);
    const buildFails = () => Promise.reject(slotClash());
    let failing = db;
    for (let i = 0; i < 3; i++) failing = interceptFirstCall(failing, 'shelf_books', 'createIndexes', buildFails);
    await expect(bringIndexesUpToDate(failing)).rejects.toMatchObject({ code: 11000 });
    expect((await members.listIndexes().toArray()).map((i) => i.name)).toContain('shelf_books_position');
    await members.insertOne({ _id: '["s1","b3"]' as never, shelfId: 's1', bookId: 'b3', position: 2 }); // an older instance, meanwhile
    await bringIndexesUpToDate(db);
    const positions = await members.find({ shelfId: 's1' }).sort({ position: 1 }).toArray();
    expect(positions.map((m) => [m.bookId, m.position])).toEqual([['b1', 1], ['b2', 2], ['b3', 3]]);
    expect((await members.listIndexes().toArray()).map((i) => i.name)).not.toContain('shelf_books_position');
  });

  it('refuses at start a database a newer Stacks marked, before touching any index or document', async () => {
    await db.collection('books').createIndex({ format: 1 }, { name: 'books_format' });
    await db.collection('stacks_meta').insertOne({ _id: 'schema' as never, version: SCHEMA_VERSION + 1 });
    await expect(createMongoStore(url)).rejects.toThrow(`the database holds schema version ${SCHEMA_VERSION + 1}, newer than this Stacks (${SCHEMA_VERSION})`);
    expect((await db.collection('books').listIndexes().toArray()).map((i) => i.name)).toEqual(['_id_', 'books_format']);
    expect(await db.collection('stacks_meta').find({}).toArray()).toEqual([{ _id: 'schema', version: SCHEMA_VERSION + 1 }]);
  });

  it('builds no index at the start of an existing database: the layout is housekeeping\'s, after listening', async () => {
    await db.collection('stacks_meta').insertOne({ _id: 'schema' as never, version: SCHEMA_VERSION });
    await db.collection('books').createIndex({ format: 1 }, { name: 'books_format' });
    const store = await createMongoStore(url);
    try {
      expect((await db.collection('books').listIndexes().toArray()).map((i) => i.name)).toEqual(['_id_', 'books_format']);
      await store.housekeeping.find((step) => step.name === 'indexes brought up to date')!.run();
      const names = (await db.collection('books').listIndexes().toArray()).map((i) => i.name);
      expect(names).toEqual(expect.arrayContaining(['books_sha256', 'books_title', 'books_by_tag_added']));
      expect(names).not.toContain('books_format');
    } finally {
      await store.close();
    }
  });

  it('upgrades a version-3 database (no change feed yet) to 4, its Kobo and change-feed indexes built by housekeeping, not at start', async () => {
    await db.collection('stacks_meta').insertOne({ _id: 'schema' as never, version: 3 });
    await db.collection('kobo_devices').insertOne({ _id: 'dev1' as never, lookup: 'l1' });
    const store = await createMongoStore(url);
    try {
      expect(await db.collection('stacks_meta').findOne({ _id: 'schema' as never })).toEqual({ _id: 'schema', version: 4 });
      expect((await db.collection('kobo_devices').listIndexes().toArray()).map((i) => i.name)).toEqual(['_id_']);
      await store.housekeeping.find((step) => step.name === 'indexes brought up to date')!.run();
      expect((await db.collection('kobo_devices').listIndexes().toArray()).map((i) => i.name)).toEqual(expect.arrayContaining(['kobo_devices_lookup', 'kobo_devices_owner']));
      expect((await db.collection('change_feed').listIndexes().toArray()).map((i) => i.name)).toEqual(expect.arrayContaining(['change_feed_group', 'change_feed_present', 'change_feed_removed']));
      expect((await db.collection('sync_documents').listIndexes().toArray()).map((i) => i.name)).toContain('sync_documents_user_recency');
    } finally {
      await store.close();
    }
  });

  it('finds nothing left to do when run again', async () => {
    await migrateLibrary(db);
    expect(await bringIndexesUpToDate(db)).toEqual({ indexesBuilt: 0, indexesDropped: 0, shelvesRenumbered: 0, shelvesRekeyed: 0 });
    expect((await db.collection('books').listIndexes().toArray()).map((i) => i.name)).toContain('books_search_tokens');
  });

  it('drops the indexes the current ones make redundant, once their replacements are built', async () => {
    await db.collection('books').createIndex({ tagKeys: 1 }, { name: 'books_tag_keys' });
    await db.collection('shelf_books').createIndex({ shelfId: 1, bookId: 1 }, { name: 'shelf_books_member' });
    await db.collection('leases').createIndex({ expiresAt: 1 }, { name: 'leases_expiry' });
    const report = await bringIndexesUpToDate(db);
    expect(report.indexesDropped).toBe(3);
    const names = async (collection: string) => (await db.collection(collection).listIndexes().toArray()).map((i) => i.name as string);
    expect(await names('books')).toEqual(expect.arrayContaining(['books_by_tag_title', 'books_by_author_added']));
    expect(await names('books')).not.toContain('books_tag_keys');
    expect(await names('shelf_books')).toEqual(['_id_', 'shelf_books_slot', 'shelf_books_book']);
    expect(await names('leases')).toEqual(['_id_']);
  });
});
