import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoClient, type CommandStartedEvent } from 'mongodb';
import { GridFsBlobStore } from '../../../src/adapters/mongo/grid-fs-blob-store.js';
import { MongoApiKeyRepository } from '../../../src/adapters/mongo/mongo-api-key-repository.js';
import { MongoChangeFeed } from '../../../src/adapters/mongo/mongo-change-feed.js';
import { MongoKoboDeviceRepository } from '../../../src/adapters/mongo/mongo-kobo-device-repository.js';
import { MongoBookDigestRepository } from '../../../src/adapters/mongo/mongo-book-digest-repository.js';
import { MongoLoginThrottleRepository } from '../../../src/adapters/mongo/mongo-login-throttle-repository.js';
import { MongoOneTimeCodeRepository } from '../../../src/adapters/mongo/mongo-one-time-code-repository.js';
import { MongoProgressRepository } from '../../../src/adapters/mongo/mongo-progress-repository.js';
import { openSchema } from '../../../src/adapters/mongo/mongo-schema.js';
import { MongoSyncDocumentRepository } from '../../../src/adapters/mongo/mongo-sync-document-repository.js';
import { MongoTokenRevocationRepository } from '../../../src/adapters/mongo/mongo-token-revocation-repository.js';
import { QUERY_MAX_TIME_MS } from '../../../src/adapters/mongo/mongo-transactions.js';
import { MongoUserRepository } from '../../../src/adapters/mongo/mongo-user-repository.js';
import { bookChange, shelfChange } from '../../../src/domain/change-feed.js';
import { aUser, instant } from '../../support/builders.js';
import { mongoTestServer, MONGO_SERVER_NAMES, mongoServerKind } from '../../support/mongo-server.js';

let client: MongoClient;
const reads: CommandStartedEvent[] = [];

beforeAll(async () => {
  client = new MongoClient((await mongoTestServer()).database(`stacks_read_limits_${process.pid}`), { monitorCommands: true });
  client.on('commandStarted', (event) => {
    if (['find', 'aggregate', 'count'].includes(event.commandName)) reads.push(event);
  });
  await client.connect();
  await openSchema(client.db());
  reads.length = 0;
}, 60_000);
afterAll(async () => {
  await client?.db().dropDatabase().catch(() => undefined);
  await client?.close();
});

const collectionOf = (event: CommandStartedEvent): string => String(event.command[event.commandName]);
const described = (e: CommandStartedEvent) => `${e.commandName} ${collectionOf(e)} ${JSON.stringify(e.command.filter ?? e.command.query ?? e.command.pipeline)}`;

describe(`every read the identity, progress, sync, key and file adapters send is bounded (${MONGO_SERVER_NAMES[mongoServerKind()]})`, () => {
  it('carries maxTimeMS; the token checks (revocation, token version) read the primary with read concern local', async () => {
    const db = client.db();
    const users = new MongoUserRepository(db);
    const admin = aUser({ id: 'u1', username: 'ann', email: 'ann@example.test', roles: ['admin'] });
    await users.createAdminIfFirst(admin);
    await users.create(aUser({ id: 'u2', username: 'bob', email: 'bob@example.test' }));
    await users.findById('u1');
    await users.findByUsername('ann');
    await users.findByEmail('bob@example.test');
    await users.findByOidcIdentity('https://idp.example', 'sub');
    await users.list({ page: 1, pageSize: 10 });
    await users.updateAccess('u2', { disabled: true }, instant(5));
    const revocations = new MongoTokenRevocationRepository(db);
    await revocations.revoke('jti-1', instant(100));
    await revocations.isRevoked('jti-1');
    const keys = new MongoApiKeyRepository(db);
    await keys.create({ id: 'k1', ownerId: 'u1', name: 'kobo', lookup: 'l1', prefix: 'stk_l1', permissions: ['books:read'], ownerTokenVersion: 0, expiresAt: null, lastUsedAt: null, createdAt: instant(3) });
    await keys.findByLookup('l1');
    await keys.listByOwner('u1', { page: 1, pageSize: 10 });
    const progress = new MongoProgressRepository(db);
    await progress.put({ userId: 'u1', bookId: 'b1', status: 'reading', percentage: 0.5, locator: null, device: null, deviceId: null, updatedAt: instant(4) });
    await progress.get('u1', 'b1');
    const sync = new MongoSyncDocumentRepository(db);
    await sync.get('u1', 'd'.repeat(32));
    const throttle = new MongoLoginThrottleRepository(db);
    await throttle.reserve('ann', instant(6), { maxFailures: 3, windowMs: 60_000, blockMs: 10_000, maxBlockMs: 40_000 });
    await throttle.get('ann');
    const codes = new MongoOneTimeCodeRepository(db);
    await codes.put('c1', 'v', instant(200));
    await codes.take('c1', instant(7));
    const digests = new MongoBookDigestRepository(db);
    await digests.findBookId('0'.repeat(32));
    await digests.booksWithoutDigests(null, 10);
    const blobs = new GridFsBlobStore(db);
    await blobs.putBytes('b1.book', Buffer.from('bytes'));
    await blobs.size('b1.book');
    await blobs.delete('b1.book');

    // The driver's own reads: the chunks a download stream reads, and its look at `fs.files` (empty filter) before
    // an upload stream's first write, to create the GridFS indexes. Nothing else may read without a limit.
    const driversOwn = (e: CommandStartedEvent) => collectionOf(e) === 'fs.chunks' || (collectionOf(e) === 'fs.files' && JSON.stringify(e.command.filter) === '{}');
    const unbounded = reads.filter((e) => e.command.maxTimeMS !== QUERY_MAX_TIME_MS && !driversOwn(e));
    expect(unbounded.map(described)).toEqual([]);
    expect(reads.length).toBeGreaterThan(15);
    const tokenChecks = reads.filter((e) => (collectionOf(e) === 'revocations') || (collectionOf(e) === 'users' && JSON.stringify(e.command.filter) === '{"_id":"u1"}'));
    expect(tokenChecks.length).toBeGreaterThanOrEqual(2);
    expect(tokenChecks.every((e) => (e.command.readConcern as { level?: string } | undefined)?.level === 'local')).toBe(true);
  });

  it('carries maxTimeMS on the Kobo device, change feed, KOReader eviction and progress batch reads too', async () => {
    const db = client.db();
    reads.length = 0;
    const devices = new MongoKoboDeviceRepository(db);
    await devices.create({ id: 'dev1', ownerId: 'u1', name: 'Libra', lookup: 'kl1', shelfIds: [], ownerTokenVersion: 0, lastUsedAt: null, createdAt: instant(1) });
    await devices.archive('dev1', 'b1');
    await devices.findByLookup('kl1');
    await devices.listByOwner('u1', { page: 1, pageSize: 10 });
    await devices.archivedAmong('dev1', ['b1', 'b2']);
    await devices.deleteForUser('u1');
    const feed = new MongoChangeFeed(db);
    await feed.record([bookChange('b1'), shelfChange('s1', 'u1')], instant(2));
    await feed.since('book', [''], 0, 10);
    await feed.head();
    await feed.untrackedBooks(null, 10);
    await feed.untracked([bookChange('b2')]);
    await feed.presentBooks(null, 10);
    const sync = new MongoSyncDocumentRepository(db);
    await sync.put({ userId: 'u1', document: 'e'.repeat(32), progress: '/p', percentage: 0.1, device: 'Kobo', deviceId: 'k', updatedAt: instant(3) }, 10);
    await new MongoProgressRepository(db).findMany('u1', ['b1', 'b2']);

    const unbounded = reads.filter((e) => e.command.maxTimeMS !== QUERY_MAX_TIME_MS);
    expect(unbounded.map(described)).toEqual([]);
    expect(new Set(reads.map(collectionOf))).toEqual(new Set(['kobo_devices', 'kobo_archived', 'change_feed', 'change_feed_counter', 'books', 'sync_documents', 'progress']));
  });
});
