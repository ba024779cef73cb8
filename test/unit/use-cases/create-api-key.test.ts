import { beforeEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { aWorld, errorOf, TEST_NOW, type World } from '../../support/kit.js';

let w: World;
beforeEach(() => {
  w = aWorld();
});

const sha256OfMd5 = (secret: string) =>
  createHash('sha256').update(createHash('md5').update(secret).digest('hex')).digest('base64url');

describe('CreateApiKey', () => {
  it("makes an stk_ key with the owner's permissions, storing only sha256(md5hex(secret)) and a display prefix", async () => {
    const { user, actor } = await w.storeUser({ roles: ['reader'] });
    const { key, secret } = await w.createApiKey.execute(actor, { ownerId: user.id, name: 'kobo' });
    expect(secret).toBe('stk_secret-1');
    expect(key).toEqual({
      id: 'id-1', ownerId: user.id, name: 'kobo', lookup: sha256OfMd5(secret), prefix: 'secret-1',
      permissions: ['books:read', 'shelves:read'], ownerTokenVersion: 0, expiresAt: null, lastUsedAt: null, createdAt: TEST_NOW,
    });
    expect(await w.store.apiKeys.findByLookup(sha256OfMd5(secret))).toEqual(key);
  });

  it('keeps a narrower list of permissions, in canonical order and without repeats', async () => {
    const { user, actor } = await w.storeUser({ roles: ['user'] });
    const { key } = await w.createApiKey.execute(actor, { ownerId: user.id, name: 'k', permissions: ['shelves:read', 'books:read', 'books:read'] });
    expect(key.permissions).toEqual(['books:read', 'shelves:read']);
  });

  it('lets an admin list any single permission (admin:* holds them all)', async () => {
    const { user, actor } = await w.storeUser({ roles: ['admin'] });
    const { key } = await w.createApiKey.execute(actor, { ownerId: user.id, name: 'k', permissions: ['books:write'] });
    expect(key.permissions).toEqual(['books:write']);
  });

  it('refuses a permission the owner does not hold (403) and stores nothing', async () => {
    const { user, actor } = await w.storeUser({ roles: ['reader'] });
    const error = await errorOf(w.createApiKey.execute(actor, { ownerId: user.id, name: 'k', permissions: ['books:write'] }));
    expect(error).toMatchObject({ kind: 'forbidden', code: 'permission_denied' });
    expect((await w.store.apiKeys.listByOwner(user.id, { page: 1, pageSize: 10 })).total).toBe(0);
  });

  it('refuses an expiry that is not in the future (validation_failed on expires_at)', async () => {
    const { user, actor } = await w.storeUser();
    const error = await errorOf(w.createApiKey.execute(actor, { ownerId: user.id, name: 'k', expiresAt: TEST_NOW }));
    expect(error).toMatchObject({ kind: 'validation', code: 'validation_failed', errors: [{ field: 'expires_at' }] });
    const later = new Date(TEST_NOW.getTime() + 1000);
    expect((await w.createApiKey.execute(actor, { ownerId: user.id, name: 'k', expiresAt: later })).key.expiresAt).toEqual(later);
  });

  it('refuses an empty or over-long name (the CLI passes no schema)', async () => {
    const { user, actor } = await w.storeUser();
    for (const name of ['  ', 'x'.repeat(101)]) {
      expect(await errorOf(w.createApiKey.execute(actor, { ownerId: user.id, name }))).toMatchObject({ code: 'validation_failed', errors: [{ field: 'name' }] });
    }
  });

  it('is refused to a caller acting through a key, so a key never mints another', async () => {
    const { user, actor } = await w.storeUser();
    const { secret } = await w.createApiKey.execute(actor, { ownerId: user.id, name: 'first' });
    const viaKey = (await w.authenticate.execute(secret, '10.0.0.1')).actor;
    expect(await errorOf(w.createApiKey.execute(viaKey, { ownerId: user.id, name: 'second' }))).toMatchObject({ code: 'permission_denied' });
  });

  it("makes a key for someone else only for an admin (the CLI's operator)", async () => {
    const { user: owner } = await w.storeUser({ roles: ['reader'] });
    const { actor: other } = await w.storeUser({ roles: ['user'] });
    const { actor: admin } = await w.storeUser({ roles: ['admin'] });
    expect(await errorOf(w.createApiKey.execute(other, { ownerId: owner.id, name: 'k' }))).toMatchObject({ code: 'permission_denied' });
    const { key } = await w.createApiKey.execute(admin, { ownerId: owner.id, name: 'k' });
    expect(key).toMatchObject({ ownerId: owner.id, permissions: ['books:read', 'shelves:read'] });
    expect(await errorOf(w.createApiKey.execute(admin, { ownerId: 'no-such-user', name: 'k' }))).toMatchObject({ code: 'user_not_found' });
  });
});
