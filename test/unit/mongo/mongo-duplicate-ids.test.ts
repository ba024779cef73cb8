import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MongoClient, MongoServerError } from 'mongodb';
import type { Db, Document } from 'mongodb';
import { isDuplicateId, isDuplicateKey } from '../../../src/adapters/mongo/mongo-database.js';
import { MongoLoginThrottleRepository } from '../../../src/adapters/mongo/mongo-login-throttle-repository.js';
import type { ThrottlePolicy } from '../../../src/domain/login-throttle.js';
import { instant } from '../../support/builders.js';
import { interceptFirstCall } from '../../support/mongo-intercept.js';
import { mongoTestServer } from '../../support/mongo-server.js';

/** An E11000 as a real server sends it: `keyPattern` and `keyValue` name the index and the values; the message is free text. */
const duplicate = (keyPattern: Document, keyValue: Document | undefined, errmsg = 'E11000 duplicate key error collection: stacks.throttles index: _id_') =>
  new MongoServerError({ ok: 0, code: 11000, codeName: 'DuplicateKey', errmsg, keyPattern, ...(keyValue ? { keyValue } : {}) });

const policy: ThrottlePolicy = { maxFailures: 3, windowMs: 60_000, blockMs: 10_000, maxBlockMs: 40_000 };

describe('duplicate ids, decided by code 11000, keyPattern and keyValue (synthesised server errors)', () => {
  it('is a duplicate id only for {_id: 1} and, when the server reports the value, only for that id', () => {
    expect(isDuplicateId(duplicate({ _id: 1 }, { _id: 'k' }), 'k')).toBe(true);
    expect(isDuplicateId(duplicate({ _id: 1 }, undefined), 'k')).toBe(true);
    expect(isDuplicateId(duplicate({ _id: 1 }, { _id: 'other' }), 'k')).toBe(false);
    expect(isDuplicateId(duplicate({ lookup: 1 }, { lookup: 'k' }, 'E11000 duplicate key index: _id_ dup key: { _id: "k" }'), 'k')).toBe(false);
    expect(isDuplicateId(new MongoServerError({ ok: 0, code: 11001, errmsg: 'E11000 index: _id_', keyPattern: { _id: 1 } }), 'k')).toBe(false);
    expect(isDuplicateId(new Error('E11000 duplicate key error index: _id_'), 'k')).toBe(false);
  });

  it('reads the key pattern and value of an insertMany failure from its first write error', () => {
    const bulk = new MongoServerError({ ok: 0, code: 11000, errmsg: 'E11000', writeErrors: [{ err: { code: 11000, keyPattern: { _id: 1 }, keyValue: { _id: 'k' } } }] });
    expect(isDuplicateId(bulk, 'k')).toBe(true);
    expect(isDuplicateKey(bulk, '_id_')).toBe(true);
    expect(isDuplicateKey(bulk, 'api_keys_lookup')).toBe(false);
  });
});

/** The database as the throttle sees it when its first insert of a counter fails with the given server error. */
function failingFirstInsert(db: Db, error: () => Promise<Error>): Db {
  return interceptFirstCall(db, 'throttles', 'insertOne', async () => {
    throw await error();
  });
}

describe('MongoLoginThrottleRepository on a lost first insert (synthesised duplicate keys)', () => {
  let client: MongoClient;
  let db: Db;
  beforeAll(async () => {
    client = new MongoClient((await mongoTestServer()).database(`stacks_duplicate_ids_${process.pid}`));
    await client.connect();
    db = client.db();
  }, 60_000);
  afterAll(async () => {
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  });

  it('treats a duplicate of its own key as a round lost to the writer that created it, and counts on top of that one', async () => {
    const plain = new MongoLoginThrottleRepository(db);
    const racing = new MongoLoginThrottleRepository(failingFirstInsert(db, async () => {
      await plain.reserve('user:ada', instant(1), policy);
      return duplicate({ _id: 1 }, { _id: 'user:ada' }, 'E11000 (wording of another server version)');
    }));
    expect(await racing.reserve('user:ada', instant(1), policy)).toBe(0);
    expect(await plain.get('user:ada')).toMatchObject({ failures: 2 });
  });

  it('throws a duplicate key on any other key instead of taking it for a lost round', async () => {
    const other = duplicate({ _id: 1 }, { _id: 'user:someone-else' });
    const racing = new MongoLoginThrottleRepository(failingFirstInsert(db, async () => other));
    await expect(racing.reserve('user:bob', instant(1), policy)).rejects.toBe(other);
    const onAnotherIndex = duplicate({ expiresAt: 1 }, { expiresAt: instant(1) }, 'E11000 duplicate key error index: _id_');
    const racingAgain = new MongoLoginThrottleRepository(failingFirstInsert(db, async () => onAnotherIndex));
    await expect(racingAgain.reserve('user:cy', instant(1), policy)).rejects.toBe(onAnotherIndex);
    expect(await new MongoLoginThrottleRepository(db).get('user:bob')).toBeNull();
  });
});
