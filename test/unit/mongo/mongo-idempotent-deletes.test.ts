import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoClient, MongoNetworkError, MongoServerError, type Db } from 'mongodb';
import { MongoApiKeyRepository } from '../../../src/adapters/mongo/mongo-api-key-repository.js';
import { MongoChangeFeed } from '../../../src/adapters/mongo/mongo-change-feed.js';
import { MongoKoboDeviceRepository } from '../../../src/adapters/mongo/mongo-kobo-device-repository.js';
import { rerunOnce } from '../../../src/adapters/mongo/mongo-errors.js';
import { MongoProgressRepository } from '../../../src/adapters/mongo/mongo-progress-repository.js';
import { MongoSyncDocumentRepository } from '../../../src/adapters/mongo/mongo-sync-document-repository.js';
import { bookChange } from '../../../src/domain/change-feed.js';
import type { KoboDevice } from '../../../src/domain/kobo-device.js';
import { instant } from '../../support/builders.js';
import { interceptFirstCall } from '../../support/mongo-intercept.js';
import { mongoTestServer, MONGO_SERVER_NAMES, mongoServerKind } from '../../support/mongo-server.js';

let client: MongoClient;
let db: Db;

beforeAll(async () => {
  client = new MongoClient((await mongoTestServer()).database(`stacks_idempotent_deletes_${process.pid}`));
  await client.connect();
  db = client.db();
}, 60_000);
afterAll(async () => {
  await db?.dropDatabase().catch(() => undefined);
  await client?.close();
});

/** What a primary stepping down answers a write (with the label a retryable write is retried on). */
const steppedDown = () => Promise.reject(new MongoServerError({ ok: 0, code: 189, codeName: 'PrimarySteppedDown', errmsg: 'stepped down', errorLabels: ['RetryableWriteError'] }));
const failingOnce = (collection: string) => interceptFirstCall(db, collection, 'deleteMany', steppedDown);
const progress = (userId: string, bookId: string) => ({ userId, bookId, status: 'reading' as const, percentage: 0.5, locator: null, device: null, deviceId: null, updatedAt: instant(1) });

describe(`deletes by filter on the request path, which the driver does not retry, run again once after a failover (${MONGO_SERVER_NAMES[mongoServerKind()]})`, () => {
  it("deletes a book's reading progress, and a user's", async () => {
    const store = new MongoProgressRepository(db);
    for (const [user, book] of [['u1', 'b1'], ['u2', 'b1'], ['u1', 'b2']] as const) await store.put(progress(user, book));
    await new MongoProgressRepository(failingOnce('progress')).deleteForBook('b1');
    expect(await store.get('u1', 'b1')).toBeNull();
    expect(await store.get('u2', 'b1')).toBeNull();
    await new MongoProgressRepository(failingOnce('progress')).deleteForUser('u1');
    expect(await store.get('u1', 'b2')).toBeNull();
  });

  it("deletes a user's KOReader positions and API keys", async () => {
    const sync = new MongoSyncDocumentRepository(db);
    await sync.put({ userId: 'u3', document: 'd'.repeat(32), progress: '/p', percentage: 0.1, device: 'Kobo', deviceId: 'k', updatedAt: instant(2) }, 10);
    await new MongoSyncDocumentRepository(failingOnce('sync_documents')).deleteForUser('u3');
    expect(await sync.get('u3', 'd'.repeat(32))).toBeNull();
    const keys = new MongoApiKeyRepository(db);
    await keys.create({ id: 'k1', ownerId: 'u3', name: 'kobo', lookup: 'l1', prefix: 'stk_l1', permissions: ['books:read'], ownerTokenVersion: 0, expiresAt: null, lastUsedAt: null, createdAt: instant(3) });
    expect(await new MongoApiKeyRepository(failingOnce('api_keys')).deleteForUser('u3')).toBe(1);
    expect(await keys.findByLookup('l1')).toBeNull();
  });

  it("evicts a user's KOReader positions past the newest kept, after a failover too", async () => {
    const sync = new MongoSyncDocumentRepository(db);
    const record = (n: number) => ({ userId: 'u4', document: String(n).repeat(32), progress: '/p', percentage: 0.1, device: 'Kobo', deviceId: 'k', updatedAt: instant(n) });
    for (const n of [1, 2]) await sync.put(record(n), 2);
    await new MongoSyncDocumentRepository(failingOnce('sync_documents')).put(record(3), 2);
    expect(await sync.get('u4', '1'.repeat(32))).toBeNull();
    expect(await sync.get('u4', '3'.repeat(32))).not.toBeNull();
  });

  it("deletes a Kobo device's archived books, and a user's devices with theirs, after a failover too", async () => {
    const devices = new MongoKoboDeviceRepository(db);
    const device = (id: string): KoboDevice => ({ id, ownerId: 'u5', name: id, lookup: `lookup-${id}`, shelfIds: [], ownerTokenVersion: 0, lastUsedAt: null, createdAt: instant(1) });
    for (const id of ['dev1', 'dev2', 'dev3']) {
      await devices.create(device(id));
      await devices.archive(id, 'b1');
    }
    expect(await new MongoKoboDeviceRepository(failingOnce('kobo_archived')).revoke('u5', 'dev1')).toBe(true);
    expect(await devices.archivedAmong('dev1', ['b1'])).toEqual(new Set());
    await new MongoKoboDeviceRepository(failingOnce('kobo_devices')).deleteForUser('u5');
    expect(await devices.findByLookup('lookup-dev2')).toBeNull();
    await new MongoKoboDeviceRepository(failingOnce('kobo_archived')).deleteForUser('u5');
    expect(await devices.archivedAmong('dev3', ['b1'])).toEqual(new Set());
  });

  it('purges old removals from the change feed after a failover too', async () => {
    const feed = new MongoChangeFeed(db);
    await feed.record([bookChange('gone-book', true)], instant(1));
    expect(await new MongoChangeFeed(failingOnce('change_feed')).purgeRemovedBefore(instant(2))).toBe(1);
    expect(await feed.presentBooks(null, 10)).toEqual([]);
    expect(await db.collection('change_feed').countDocuments({ entityId: 'gone-book' })).toBe(0);
  });

  it('runs a write again only after a store outage, and once: a second failure, or any other error, is thrown as it is', async () => {
    let attempts = 0;
    const network = new MongoNetworkError('connection reset');
    await expect(rerunOnce(async () => { attempts += 1; throw network; })).rejects.toBe(network);
    expect(attempts).toBe(2);
    const badValue = new MongoServerError({ ok: 0, code: 2, codeName: 'BadValue', errmsg: 'bad value' });
    await expect(rerunOnce(async () => { attempts += 1; throw badValue; })).rejects.toBe(badValue);
    expect(attempts).toBe(3);
  });
});
