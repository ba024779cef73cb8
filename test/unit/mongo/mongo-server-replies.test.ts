import { describe, expect, it } from 'vitest';
import { MongoServerError, MongoWriteConcernError } from 'mongodb';
import type { Db, Document } from 'mongodb';
import { assertReplicaSet, conflictOrSame, isDuplicateKey, MongoDeploymentError } from '../../../src/adapters/mongo/mongo-database.js';
import { throttleExpiresAt } from '../../../src/adapters/mongo/mongo-login-throttle-repository.js';
import { canTakeMajorityWrites, MongoHealthCheck, READINESS_CACHE_MS } from '../../../src/adapters/mongo/mongo-health.js';
import { emailTaken, usernameTaken } from '../../../src/domain/error-catalogue.js';
import { instant } from '../../support/builders.js';

/** An E11000 as a real server sends it: the index in `keyPattern`/`keyValue`, the message free text. */
const duplicate = (keyPattern: Document, errmsg = 'E11000 duplicate key error collection: stacks.users'): MongoServerError =>
  new MongoServerError({ ok: 0, code: 11000, codeName: 'DuplicateKey', errmsg, keyPattern, keyValue: Object.fromEntries(Object.keys(keyPattern).map((k) => [k, 'x'])) });

/** A database whose server answers `hello` with the reply (or error) given, and the readiness write with success or the error given. */
function server(answers: { hello: Document | Error; write?: Error | null; writes?: Document[] }): Db {
  const answer = async <T>(value: T | Error): Promise<T> => (value instanceof Error ? Promise.reject(value) : value);
  return {
    command: () => answer(answers.hello),
    collection: () => ({
      updateOne: (_filter: unknown, _update: unknown, options: { writeConcern: Document }) => {
        answers.writes?.push(options.writeConcern);
        return answer(answers.write ?? { acknowledged: true });
      },
    }),
  } as unknown as Db;
}

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
    await expect(new MongoHealthCheck(server({ hello: PRIMARY })).ping()).resolves.toBeUndefined();
    await expect(new MongoHealthCheck(server({ hello: { ...PRIMARY, isWritablePrimary: false, secondary: true } })).ping()).rejects.toMatchObject({ kind: 'unavailable' });
    const notWritable = new MongoServerError({ ok: 0, code: 10107, codeName: 'NotWritablePrimary', errmsg: 'not primary' });
    await expect(new MongoHealthCheck(server({ hello: notWritable })).ping()).rejects.toMatchObject({ kind: 'unavailable' });
  });

  it('is not ready while majority writes fail on a writable primary (its secondary down: the probe write times out with wtimeout, code 64)', async () => {
    const wtimeout = new MongoWriteConcernError({ ok: 1, n: 1, writeConcernError: { code: 64, codeName: 'WriteConcernFailed', errmsg: 'waiting for replication timed out', errInfo: { wtimeout: true } } });
    const writes: Document[] = [];
    const check = new MongoHealthCheck(server({ hello: PRIMARY, write: wtimeout, writes }));
    await expect(check.ping()).rejects.toMatchObject({ code: 'store_unavailable' });
    expect(writes).toEqual([{ w: 'majority', wtimeoutMS: 2_000 }]);
  });

  it(`reuses a readiness answer for ${READINESS_CACHE_MS} ms, then checks again`, async () => {
    let now = 0;
    const outcome: { write: Error | null } = { write: null };
    const writes: Document[] = [];
    const check = new MongoHealthCheck(server({ hello: PRIMARY, writes, get write() { return outcome.write; } }), () => now);
    await expect(check.ping()).resolves.toBeUndefined();
    outcome.write = new MongoServerError({ ok: 0, code: 91, codeName: 'ShutdownInProgress', errmsg: 'shutting down' });
    now = READINESS_CACHE_MS - 1;
    await expect(check.ping()).resolves.toBeUndefined();
    now = READINESS_CACHE_MS;
    await expect(check.ping()).rejects.toMatchObject({ code: 'store_unavailable' });
    expect(writes).toHaveLength(2);
  });

  it('lets the server forget a throttle counter once its window and the cool-down after its block are over', () => {
    const policy = { maxFailures: 3, windowMs: 60_000, blockMs: 10_000, maxBlockMs: 40_000 };
    expect(throttleExpiresAt({ key: 'k', failures: 1, windowStartedAt: instant(100), blockedUntil: null, blocks: 0 }, policy)).toEqual(instant(160));
    expect(throttleExpiresAt({ key: 'k', failures: 0, windowStartedAt: instant(100), blockedUntil: instant(140), blocks: 1 }, policy)).toEqual(instant(200));
  });
});
