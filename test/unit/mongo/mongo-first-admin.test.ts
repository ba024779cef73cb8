import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoClient, MongoServerError } from 'mongodb';
import type { Db } from 'mongodb';
import { MongoUserRepository } from '../../../src/adapters/mongo/mongo-user-repository.js';
import { aUser } from '../../support/builders.js';
import { interceptFirstCall } from '../../support/mongo-intercept.js';
import { mongoTestServer } from '../../support/mongo-server.js';

/** What a real replica set answers the second of two transactions writing one document: retry the whole transaction. */
const writeConflict = () =>
  new MongoServerError({ code: 112, codeName: 'WriteConflict', errmsg: 'Write conflict during plan execution', errorLabels: ['TransientTransactionError'] });

/**
 * The database as a registration sees it when a rival registration commits while it runs: the first
 * write of the first-user guard lets the rival in first, then fails with the server's write conflict.
 */
function withRivalOnGuard(db: Db, rival: () => Promise<void>): Db {
  return interceptFirstCall(db, 'guards', 'updateOne', async () => {
    await rival();
    throw writeConflict();
  });
}

describe('the first account on MongoDB, when a rival first registration wins the guard (synthesised write conflict)', () => {
  let client: MongoClient;
  let databases = 0;
  const freshDb = () => client.db(`stacks_first_admin_${process.pid}_${++databases}`);

  beforeAll(async () => {
    client = new MongoClient((await mongoTestServer()).database('admin'));
    await client.connect();
  }, 60_000);
  afterAll(async () => {
    for (let n = 1; n <= databases; n++) await client.db(`stacks_first_admin_${process.pid}_${n}`).dropDatabase().catch(() => undefined);
    await client.close();
  });

  it('retries the transaction, sees the rival account and stores itself without the admin role', async () => {
    const db = freshDb();
    const plain = new MongoUserRepository(db);
    const rival = aUser({ roles: ['user'] });
    const racing = new MongoUserRepository(withRivalOnGuard(db, async () => void (await plain.createAdminIfFirst(rival))));
    const late = await racing.createAdminIfFirst(aUser({ roles: ['user'] }));
    expect(late.roles).toEqual(['user']);
    expect((await plain.findById(rival.id))?.roles).toEqual(['admin']);
    expect(await plain.findById(late.id)).toEqual(late);
    expect(await plain.count()).toBe(2);
  });

  it('without a rival stores the first account as admin through the transaction', async () => {
    const repository = new MongoUserRepository(freshDb());
    const first = await repository.createAdminIfFirst(aUser({ roles: ['user'] }));
    expect(first.roles).toEqual(['admin']);
    expect(await repository.findById(first.id)).toEqual(first);
  });
});
