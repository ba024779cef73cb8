import { describe, expect, it } from 'vitest';
import { MongoServerError } from 'mongodb';
import type { Document } from 'mongodb';
import { assertReplicaSet, conflictOrSame, isDuplicateKey, MongoDeploymentError } from '../../../src/adapters/mongo/mongo-database.js';
import type { MongoDatabase } from '../../../src/adapters/mongo/mongo-database.js';
import { throttleExpiresAt } from '../../../src/adapters/mongo/mongo-login-throttle-repository.js';
import { canTakeMajorityWrites, MongoHealthCheck } from '../../../src/adapters/mongo/mongo-store.js';
import { emailTaken, usernameTaken } from '../../../src/domain/error-catalogue.js';
import { instant } from '../../support/builders.js';

/** An E11000 as a real server sends it: the index in `keyPattern`/`keyValue`, the message free text. */
const duplicate = (keyPattern: Document, errmsg = 'E11000 duplicate key error collection: stacks.users'): MongoServerError =>
  new MongoServerError({ ok: 0, code: 11000, codeName: 'DuplicateKey', errmsg, keyPattern, keyValue: Object.fromEntries(Object.keys(keyPattern).map((k) => [k, 'x'])) });

const PRIMARY = { isWritablePrimary: true, secondary: false, setName: 'rs0', hosts: ['db1:27017', 'db2:27017', 'db3:27017'], ok: 1 };

describe('server replies only a real replica set sends, synthesised', () => {
  it('recognises a duplicate key by code 11000 and keyPattern, not by the words of the message', () => {
    const onEmail = duplicate({ emailKey: 1 }, 'E11000 duplicate key error index: users_username_key (wording changed)');
    expect(isDuplicateKey(onEmail, 'users_username_key', 'users_email_key')).toBe(true);
    expect(isDuplicateKey(onEmail, 'users_email_key')).toBe(true);
    expect(isDuplicateKey(onEmail, 'users_username_key')).toBe(false);
    expect(isDuplicateKey(duplicate({ _id: 1 }), '_id_')).toBe(true);
    expect(isDuplicateKey(new MongoServerError({ ok: 0, code: 11001, errmsg: 'E11000 users_email_key' }), 'users_email_key')).toBe(false);
    expect(isDuplicateKey(new Error('E11000 duplicate key users_email_key'), 'users_email_key')).toBe(false);
  });

  it('maps a duplicate key to the conflict of the index whose key the server reports', () => {
    const byIndex = { users_username_key: () => usernameTaken('ada'), users_email_key: () => emailTaken() };
    expect(conflictOrSame(duplicate({ emailKey: 1 }), byIndex)).toMatchObject({ code: 'email_already_exists' });
    expect(conflictOrSame(duplicate({ usernameKey: 1 }), byIndex)).toMatchObject({ code: 'username_already_exists' });
    const unknownIndex = duplicate({ other: 1 });
    expect(conflictOrSame(unknownIndex, byIndex)).toBe(unknownIndex);
  });

  it('refuses a standalone server (hello without setName), saying MongoDB must be a replica set', () => {
    expect(() => assertReplicaSet({ isWritablePrimary: true, ok: 1 })).toThrow(MongoDeploymentError);
    expect(() => assertReplicaSet({ isWritablePrimary: true, ok: 1 })).toThrow(/MongoDB must be a replica set \(a one-member set is fine/);
    expect(() => assertReplicaSet(PRIMARY)).not.toThrow();
    expect(() => assertReplicaSet({ ...PRIMARY, isWritablePrimary: false, secondary: true })).not.toThrow();
    expect(() => assertReplicaSet({ msg: 'isdbgrid', isWritablePrimary: true, ok: 1 })).not.toThrow();
  });

  it('is ready only on a writable primary: not on a secondary after a step-down (NotWritablePrimary), nor on a standalone', async () => {
    expect(canTakeMajorityWrites(PRIMARY)).toBe(true);
    expect(canTakeMajorityWrites({ ...PRIMARY, isWritablePrimary: false, secondary: true })).toBe(false);
    expect(canTakeMajorityWrites({ isWritablePrimary: true, ok: 1 })).toBe(false);
    const answering = (reply: Document) => new MongoHealthCheck({ db: { command: async () => reply } } as unknown as MongoDatabase);
    await expect(answering(PRIMARY).ping()).resolves.toBeUndefined();
    await expect(answering({ ...PRIMARY, isWritablePrimary: false, secondary: true }).ping()).rejects.toMatchObject({ kind: 'unavailable' });
    const notWritable = new MongoServerError({ ok: 0, code: 10107, codeName: 'NotWritablePrimary', errmsg: 'not primary' });
    const failing = new MongoHealthCheck({ db: { command: async () => Promise.reject(notWritable) } } as unknown as MongoDatabase);
    await expect(failing.ping()).rejects.toMatchObject({ kind: 'unavailable' });
  });

  it('lets the server forget a throttle counter once its window and the cool-down after its block are over', () => {
    const policy = { maxFailures: 3, windowMs: 60_000, blockMs: 10_000, maxBlockMs: 40_000 };
    expect(throttleExpiresAt({ key: 'k', failures: 1, windowStartedAt: instant(100), blockedUntil: null, blocks: 0 }, policy)).toEqual(instant(160));
    expect(throttleExpiresAt({ key: 'k', failures: 0, windowStartedAt: instant(100), blockedUntil: instant(140), blocks: 1 }, policy)).toEqual(instant(200));
  });
});
