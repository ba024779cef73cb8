import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { RoleName } from '../../../src/domain/permissions.js';
import { aWorld, errorOf, TEST_NOW, type World } from '../../support/kit.js';

let w: World;
beforeEach(() => {
  w = aWorld();
});

const ADDRESS = '10.0.0.9';

async function ownerWithKey(roles: RoleName[], permissions?: Parameters<World['createApiKey']['execute']>[1]['permissions'], expiresAt?: Date) {
  const { user, actor } = await w.storeUser({ roles });
  const created = await w.createApiKey.execute(actor, { ownerId: user.id, name: 'k', permissions, expiresAt });
  return { user, ...created };
}

describe('AuthenticateApiKey (through Authenticate)', () => {
  it('acts as the owner with the key’s permissions, flagged as a key', async () => {
    const { user, key, secret } = await ownerWithKey(['user'], ['books:read']);
    const got = await w.authenticate.execute(secret, ADDRESS);
    expect(got.actor).toEqual({ id: user.id, username: user.username, roles: ['user'], permissions: ['books:read'], credential: { kind: 'key', keyId: key.id, lookup: key.lookup } });
    expect(got.claims).toBeNull();
  });

  it("re-checks the ceiling against the owner's current roles on every call", async () => {
    const { user, secret } = await ownerWithKey(['user']);
    await w.store.users.updateAccess(user.id, { roles: ['reader'] }, w.clock.now());
    expect((await w.authenticate.execute(secret, ADDRESS)).actor.permissions).toEqual(['books:read', 'shelves:read']);
    await w.store.users.updateAccess(user.id, { roles: ['admin'] }, w.clock.now());
    expect((await w.authenticate.execute(secret, ADDRESS)).actor.permissions).toEqual(['books:read', 'books:write', 'books:delete', 'shelves:read', 'shelves:write']);
  });

  it('refuses an expired key, a disabled owner (also after re-enabling) and a changed password', async () => {
    const expiring = await ownerWithKey(['user'], undefined, new Date(TEST_NOW.getTime() + 60_000));
    w.clock.advance(60_000);
    expect(await errorOf(w.authenticate.execute(expiring.secret, ADDRESS))).toMatchObject({ code: 'invalid_token' });

    const disabled = await ownerWithKey(['user']);
    await w.store.users.updateAccess(disabled.user.id, { disabled: true }, w.clock.now());
    expect(await errorOf(w.authenticate.execute(disabled.secret, ADDRESS))).toMatchObject({ code: 'invalid_token' });
    await w.store.users.updateAccess(disabled.user.id, { disabled: false }, w.clock.now());
    expect(await errorOf(w.authenticate.execute(disabled.secret, ADDRESS))).toMatchObject({ code: 'invalid_token' });

    const reset = await ownerWithKey(['user']);
    await w.store.users.setPassword(reset.user.id, 'new hash', w.clock.now());
    expect(await errorOf(w.authenticate.execute(reset.secret, ADDRESS))).toMatchObject({ code: 'invalid_token' });
  });

  it("recognises KOReader's lowercase or uppercase hex MD5 of the secret without the secret", async () => {
    const { user, secret } = await ownerWithKey(['reader']);
    const md5 = createHash('md5').update(secret).digest('hex');
    expect((await w.authenticateApiKey.execute({ md5Hex: md5 }, ADDRESS)).user.id).toBe(user.id);
    expect((await w.authenticateApiKey.execute({ md5Hex: md5.toUpperCase() }, ADDRESS)).user.id).toBe(user.id);
    expect(await errorOf(w.authenticateApiKey.execute({ md5Hex: createHash('md5').update('stk_wrong').digest('hex') }, ADDRESS)))
      .toMatchObject({ code: 'invalid_token' });
  });

  it('writes last_used_at at most once a minute', async () => {
    const { key, secret } = await ownerWithKey(['user']);
    const lastUsed = async () => (await w.store.apiKeys.findByLookup(key.lookup))?.lastUsedAt;
    await w.authenticate.execute(secret, ADDRESS);
    expect(await lastUsed()).toEqual(TEST_NOW);
    w.clock.advance(59_000);
    await w.authenticate.execute(secret, ADDRESS);
    expect(await lastUsed()).toEqual(TEST_NOW);
    w.clock.advance(1_000);
    await w.authenticate.execute(secret, ADDRESS);
    expect(await lastUsed()).toEqual(w.clock.now());
  });

  it('counts wrong keys per address and then refuses even a right key (429) until the block ends', async () => {
    const { secret } = await ownerWithKey(['user']);
    const limit = 10; // DEFAULT_WORLD_SETTINGS.loginPolicies.address.maxFailures
    for (let i = 0; i < limit; i++) {
      expect(await errorOf(w.authenticate.execute(`stk_guess-${i}`, ADDRESS))).toMatchObject({ code: 'invalid_token' });
    }
    expect(await errorOf(w.authenticate.execute(secret, ADDRESS))).toMatchObject({ kind: 'rate_limited', code: 'rate_limited' });
    expect((await w.authenticate.execute(secret, '10.0.0.10')).actor.credential.kind).toBe('key');
    w.clock.advance(15 * 60_000);
    expect((await w.authenticate.execute(secret, ADDRESS)).actor.credential.kind).toBe('key');
  });

  it('never counts a right key against the address: honest use, even in a burst, never blocks it nor leaves a counter', async () => {
    const { secret } = await ownerWithKey(['user']);
    for (let i = 0; i < 30; i++) await w.authenticate.execute(secret, ADDRESS);
    await Promise.all(Array.from({ length: 50 }, () => w.authenticate.execute(secret, ADDRESS)));
    expect(await w.store.throttle.get(`api-key-address:${ADDRESS}`)).toBeNull();
    for (let i = 0; i < 9; i++) await errorOf(w.authenticate.execute(`stk_guess-${i}`, ADDRESS));
    expect((await w.authenticate.execute(secret, ADDRESS)).actor.credential.kind).toBe('key');
    expect(await w.store.throttle.get(`api-key-address:${ADDRESS}`)).toMatchObject({ failures: 9, blockedUntil: null });
  });

  it('answers at most the limit of a burst of wrong keys as checked (401); the rest 429', async () => {
    const answers = await Promise.all(Array.from({ length: 25 }, (_, i) => errorOf(w.authenticate.execute(`stk_burst-${i}`, ADDRESS))));
    expect(answers.filter((e) => e.code === 'invalid_token')).toHaveLength(10);
    expect(answers.filter((e) => e.code === 'rate_limited')).toHaveLength(15);
  });
});
