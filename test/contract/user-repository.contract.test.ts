import { describe, expect, it } from 'vitest';
import { ConflictError } from '../../src/domain/errors.js';
import { aUser, instant } from '../support/builders.js';
import type { StoreFactory } from './stores.js';
import { itWhere, STORE_FACTORIES, useStore } from './stores.js';

function userRepositoryContract(factory: StoreFactory): void {
  const store = useStore(factory);
  const users = () => store().users;

  it('creates a user and finds it by id, username, e-mail and OIDC identity', async () => {
    const user = aUser({ oidc: { issuer: 'https://idp.test', subject: 'sub-1', linkedAt: instant(2) }, roles: ['admin', 'user'] });
    await users().create(user);
    expect(await users().findById(user.id)).toEqual(user);
    expect(await users().findByUsername(user.username)).toEqual(user);
    expect(await users().findByEmail(user.email)).toEqual(user);
    expect(await users().findByOidcIdentity('https://idp.test', 'sub-1')).toEqual(user);
  });

  it('returns null for absent users and false when deleting one', async () => {
    await users().create(aUser({ oidc: { issuer: 'https://idp.test', subject: 's', linkedAt: instant(2) } }));
    expect(await users().findById('nope')).toBeNull();
    expect(await users().findByUsername('nobody')).toBeNull();
    expect(await users().findByEmail('nobody@example.test')).toBeNull();
    expect(await users().findByOidcIdentity('https://idp.test', 'other')).toBeNull();
    expect(await users().findByOidcIdentity('https://other.test', 's')).toBeNull();
    expect(await users().delete('nope')).toBe(false);
  });

  it('matches usernames case-insensitively and e-mails after lower-casing', async () => {
    const user = aUser({ username: 'Ada.Lovelace', email: 'ada@example.test' });
    await users().create(user);
    expect((await users().findByUsername('ADA.lovelace'))?.id).toBe(user.id);
    expect(await users().findByEmail('  ADA@Example.TEST ')).toEqual(user);
  });

  itWhere(factory, 'uniqueIndexes')('rejects a username taken in any letter case', async () => {
    await users().create(aUser({ username: 'grace' }));
    const error = await users().create(aUser({ username: 'GRACE' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConflictError);
    expect(error).toMatchObject({ code: 'username_already_exists' });
    expect(await users().count()).toBe(1);
  });

  itWhere(factory, 'uniqueIndexes')('rejects an e-mail that is already used', async () => {
    await users().create(aUser({ email: 'same@example.test' }));
    await expect(users().create(aUser({ email: 'same@example.test' }))).rejects.toMatchObject({
      code: 'email_already_exists',
    });
  });

  itWhere(factory, 'uniqueIndexes')('rejects an OIDC identity linked to another user, but allows many users without one', async () => {
    const oidc = { issuer: 'https://idp.test', subject: 'abc', linkedAt: instant(2) };
    await users().create(aUser({ oidc }));
    await users().create(aUser({ oidc: null }));
    await users().create(aUser({ oidc: null }));
    await users().create(aUser({ oidc: { issuer: 'https://other.test', subject: 'abc', linkedAt: instant(2) } }));
    await expect(users().create(aUser({ oidc }))).rejects.toBeInstanceOf(ConflictError);
    expect(await users().count()).toBe(4);
  });

  describe('targeted writes', () => {
    it('sets a password and bumps the token version in one write, returning the stored user', async () => {
      const user = aUser({ tokenVersion: 2 });
      await users().create(user);
      const updated = await users().setPassword(user.id, 'new-hash', instant(700));
      expect(updated).toEqual({ ...user, passwordHash: 'new-hash', tokenVersion: 3, updatedAt: instant(700) });
      expect(await users().findById(user.id)).toEqual(updated);
      expect(await users().setPassword('ghost', 'h', instant(700))).toBeNull();
      expect(await users().findById('ghost')).toBeNull();
    });

    it('changes roles (without repeats) and the disabled flag; disabling bumps the token version, enabling does not', async () => {
      const user = aUser({ roles: ['user'] });
      await users().create(user);
      const disabled = await users().updateAccess(user.id, { roles: ['reader', 'reader'], disabled: true }, instant(701));
      expect(disabled).toEqual({ ...user, roles: ['reader'], disabled: true, tokenVersion: 1, updatedAt: instant(701) });
      const enabled = await users().updateAccess(user.id, { disabled: false }, instant(702));
      expect(enabled).toEqual({ ...user, roles: ['reader'], disabled: false, tokenVersion: 1, updatedAt: instant(702) });
      expect(await users().findById(user.id)).toEqual(enabled);
      expect(await users().updateAccess('ghost', { disabled: true }, instant(703))).toBeNull();
    });

    it('keeps a disable that lands between a password writer\'s read and its write', async () => {
      const user = aUser({ roles: ['user'] });
      await users().create(user);
      const read = await users().findById(user.id);
      await users().updateAccess(user.id, { disabled: true, roles: ['reader'] }, instant(710));
      await users().setPassword(user.id, 'hash-from-a-stale-read', instant(711));
      expect(await users().findById(user.id)).toEqual({ ...read, passwordHash: 'hash-from-a-stale-read', roles: ['reader'],
        disabled: true, tokenVersion: 2, updatedAt: instant(711) });
    });

    it('keeps a password change that lands between an access writer\'s read and its write', async () => {
      const user = aUser({ roles: ['user'] });
      await users().create(user);
      const read = await users().findById(user.id);
      await users().setPassword(user.id, 'newer-hash', instant(720));
      await users().updateAccess(user.id, { roles: ['reader'] }, instant(721));
      expect(await users().findById(user.id)).toEqual({ ...read, passwordHash: 'newer-hash', roles: ['reader'], tokenVersion: 1,
        updatedAt: instant(721) });
    });
  });

  describe('the last active admin', () => {
    it('refuses to demote, disable or delete the last active admin with last_admin, changing nothing', async () => {
      const only = aUser({ roles: ['admin'] });
      await users().create(only);
      await users().create(aUser({ roles: ['admin'], disabled: true }));
      await expect(users().updateAccess(only.id, { roles: ['user'] }, instant(730))).rejects.toMatchObject({ code: 'last_admin' });
      await expect(users().updateAccess(only.id, { disabled: true }, instant(730))).rejects.toMatchObject({ code: 'last_admin' });
      await expect(users().delete(only.id)).rejects.toMatchObject({ code: 'last_admin' });
      expect(await users().findById(only.id)).toEqual(only);
    });

    it('lets an admin go once another active admin exists, and always lets a non-admin or disabled admin go', async () => {
      const first = aUser({ roles: ['admin'] });
      const second = aUser({ roles: ['user', 'admin'] });
      const dormant = aUser({ roles: ['admin'], disabled: true });
      for (const u of [first, second, dormant]) await users().create(u);
      expect((await users().updateAccess(first.id, { roles: ['user'] }, instant(740)))?.roles).toEqual(['user']);
      expect(await users().updateAccess(first.id, { disabled: true }, instant(741))).toMatchObject({ disabled: true });
      expect(await users().delete(dormant.id)).toBe(true);
      expect(await users().delete(first.id)).toBe(true);
      await expect(users().delete(second.id)).rejects.toMatchObject({ code: 'last_admin' });
    });

    itWhere(factory, 'transactions')('lets only one of two concurrent demotions of the last two admins through', async () => {
      const [a, b] = [aUser({ roles: ['admin'] }), aUser({ roles: ['admin'] })];
      for (const u of [a, b]) await users().create(u);
      const results = await Promise.allSettled([
        users().updateAccess(a.id, { roles: ['user'] }, instant(750)),
        users().updateAccess(b.id, { disabled: true }, instant(750)),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: 'last_admin' } });
      const remaining = [await users().findById(a.id), await users().findById(b.id)];
      expect(remaining.filter((u) => u && !u.disabled && u.roles.includes('admin'))).toHaveLength(1);
    });

    itWhere(factory, 'transactions')('lets only one of a concurrent delete and demotion of the last two admins through', async () => {
      const [a, b] = [aUser({ roles: ['admin'] }), aUser({ roles: ['admin'] })];
      for (const u of [a, b]) await users().create(u);
      const results = await Promise.allSettled([users().delete(a.id), users().updateAccess(b.id, { roles: ['reader'] }, instant(760))]);
      expect(results.filter((r) => r.status === 'rejected')).toMatchObject([{ reason: { code: 'last_admin' } }]);
      const remaining = [await users().findById(a.id), await users().findById(b.id)];
      expect(remaining.filter((u) => u && !u.disabled && u.roles.includes('admin'))).toHaveLength(1);
    });
  });

  describe('createAdminIfFirst', () => {
    it('stores the first account as admin and every later one with its own roles, returning what it stored', async () => {
      const first = await users().createAdminIfFirst(aUser({ roles: ['reader'] }));
      const second = await users().createAdminIfFirst(aUser({ roles: ['reader'] }));
      expect(first.roles).toEqual(['admin']);
      expect(second.roles).toEqual(['reader']);
      expect(await users().findById(first.id)).toEqual(first);
      expect(await users().findById(second.id)).toEqual(second);
    });

    it('does not make an admin when any account exists, even a disabled non-admin', async () => {
      await users().create(aUser({ roles: ['user'], disabled: true }));
      expect((await users().createAdminIfFirst(aUser({ roles: ['user'] }))).roles).toEqual(['user']);
    });

    itWhere(factory, 'uniqueIndexes')('refuses a taken username like create, storing nothing', async () => {
      await users().createAdminIfFirst(aUser({ username: 'first' }));
      await expect(users().createAdminIfFirst(aUser({ username: 'FIRST' }))).rejects.toMatchObject({ code: 'username_already_exists' });
      expect(await users().count()).toBe(1);
    });

    itWhere(factory, 'transactions')('of 100 concurrent first registrations exactly one becomes admin, and all are stored', async () => {
      const results = await Promise.all(Array.from({ length: 100 }, () => users().createAdminIfFirst(aUser({ roles: ['user'] }))));
      expect(results.filter((u) => u.roles.includes('admin'))).toHaveLength(1);
      const stored = await users().list({ page: 1, pageSize: 100 });
      expect(stored.total).toBe(100);
      expect(stored.items.filter((u) => u.roles.includes('admin'))).toHaveLength(1);
    });
  });

  it('deletes a user, freeing its username and e-mail', async () => {
    const user = aUser();
    await users().create(user);
    expect(await users().delete(user.id)).toBe(true);
    expect(await users().findById(user.id)).toBeNull();
    await users().create(aUser({ username: user.username, email: user.email }));
    expect(await users().count()).toBe(1);
  });

  it('lists by creation time then id, in pages, with the total', async () => {
    const c = aUser({ id: 'c', createdAt: instant(5) });
    const a = aUser({ id: 'a', createdAt: instant(1) });
    const b = aUser({ id: 'b', createdAt: instant(5) });
    for (const u of [c, a, b]) await users().create(u);
    const first = await users().list({ page: 1, pageSize: 2 });
    expect(first.items.map((u) => u.id)).toEqual(['a', 'b']);
    expect(first.total).toBe(3);
    expect((await users().list({ page: 2, pageSize: 2 })).items).toEqual([c]);
    expect(await users().list({ page: 3, pageSize: 2 })).toEqual({ items: [], total: 3 });
  });

  it('hands out copies: changing a returned or stored object does not change the store', async () => {
    const user = aUser({ roles: ['user'] });
    await users().create(user);
    (user.roles as string[]).push('admin');
    const found = await users().findById(user.id);
    expect(found?.roles).toEqual(['user']);
    (found?.roles as string[]).push('admin');
    found?.createdAt.setTime(0);
    const again = await users().findById(user.id);
    expect(again?.roles).toEqual(['user']);
    expect(again?.createdAt.getTime()).not.toBe(0);
  });

  describe('linkOidcIdentity', () => {
    const identity = { issuer: 'https://idp.test', subject: 'sub-link' };
    const linkedSince = (at: Date) => ({ ...identity, linkedAt: at });

    it('links an identity to an account that has none, since then, and bumps the token version, changing nothing else', async () => {
      const user = aUser({ passwordHash: null, oidc: null, updatedAt: instant(1) });
      await users().create(user);
      const linked = await users().linkOidcIdentity(user.id, identity, instant(50));
      expect(linked).toEqual({ ...user, oidc: linkedSince(instant(50)), tokenVersion: user.tokenVersion + 1, updatedAt: instant(50) });
      expect(await users().findById(user.id)).toEqual(linked);
      expect(await users().findByOidcIdentity(identity.issuer, identity.subject)).toEqual(linked);
    });

    it('returns null and changes nothing when the account already has an identity or does not exist', async () => {
      const user = aUser({ oidc: { issuer: 'https://idp.test', subject: 'sub-own', linkedAt: instant(3) } });
      await users().create(user);
      expect(await users().linkOidcIdentity(user.id, identity, instant(50))).toBeNull();
      expect(await users().linkOidcIdentity(user.id, user.oidc!, instant(50))).toBeNull();
      expect(await users().linkOidcIdentity('ghost', identity, instant(50))).toBeNull();
      expect(await users().findById(user.id)).toEqual(user);
      expect(await users().findByOidcIdentity(identity.issuer, identity.subject)).toBeNull();
      expect(await users().count()).toBe(1);
    });

    it('of two concurrent links of two identities to one account, exactly one wins', async () => {
      const user = aUser({ oidc: null });
      await users().create(user);
      const other = { issuer: 'https://idp.test', subject: 'sub-other' };
      const results = await Promise.all([users().linkOidcIdentity(user.id, identity, instant(50)), users().linkOidcIdentity(user.id, other, instant(60))]);
      const winners = results.filter((r) => r !== null);
      expect(winners).toHaveLength(1);
      expect(await users().findById(user.id)).toEqual(winners[0]);
    });

    itWhere(factory, 'uniqueIndexes')('refuses an identity that another account holds, changing neither', async () => {
      const holder = aUser({ oidc: linkedSince(instant(4)) });
      const other = aUser({ oidc: null });
      await users().create(holder);
      await users().create(other);
      const error = await users().linkOidcIdentity(other.id, identity, instant(50)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConflictError);
      expect(error).toMatchObject({ code: 'oidc_identity_already_linked' });
      expect(await users().findById(other.id)).toEqual(other);
      expect(await users().findById(holder.id)).toEqual(holder);
    });

    itWhere(factory, 'uniqueIndexes')('of two concurrent links of one identity to two accounts, exactly one wins', async () => {
      const first = aUser({ oidc: null });
      const second = aUser({ oidc: null });
      await users().create(first);
      await users().create(second);
      const results = await Promise.allSettled([first, second].map((u) => users().linkOidcIdentity(u.id, identity, instant(50))));
      const won = results.filter((r) => r.status === 'fulfilled');
      const lost = results.filter((r) => r.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost.map((r) => r.reason)).toEqual([expect.objectContaining({ code: 'oidc_identity_already_linked' })]);
      const winner = (won[0] as PromiseFulfilledResult<{ id: string } | null>).value;
      expect((await users().findByOidcIdentity(identity.issuer, identity.subject))?.id).toBe(winner?.id);
      const loserId = winner?.id === first.id ? second.id : first.id;
      expect((await users().findById(loserId))?.oidc).toBeNull();
    });
  });

  describe('unlinkOidcIdentity', () => {
    const identity = { issuer: 'https://idp.test', subject: 'sub-unlink', linkedAt: instant(4) };

    it('removes the identity and bumps the token version, changing nothing else; the identity may then link elsewhere', async () => {
      const user = aUser({ oidc: identity, updatedAt: instant(5) });
      await users().create(user);
      const unlinked = await users().unlinkOidcIdentity(user.id, instant(60));
      expect(unlinked).toEqual({ ...user, oidc: null, tokenVersion: user.tokenVersion + 1, updatedAt: instant(60) });
      expect(await users().findById(user.id)).toEqual(unlinked);
      expect(await users().findByOidcIdentity(identity.issuer, identity.subject)).toBeNull();
      const other = aUser({ oidc: null });
      await users().create(other);
      expect((await users().linkOidcIdentity(other.id, identity, instant(70)))?.oidc).toEqual({ ...identity, linkedAt: instant(70) });
    });

    it('returns null and changes nothing for an account without an identity, or none at all', async () => {
      const user = aUser({ oidc: null });
      await users().create(user);
      expect(await users().unlinkOidcIdentity(user.id, instant(60))).toBeNull();
      expect(await users().unlinkOidcIdentity('ghost', instant(60))).toBeNull();
      expect(await users().findById(user.id)).toEqual(user);
    });

    it('of 100 unlinks of one account at once, one unlinks and bumps the version once; a link and an unlink interleaved end in one of their states', async () => {
      const user = aUser({ oidc: identity });
      await users().create(user);
      const results = await Promise.all(Array.from({ length: 100 }, () => users().unlinkOidcIdentity(user.id, instant(60))));
      expect(results.filter((r) => r !== null)).toHaveLength(1);
      expect((await users().findById(user.id))?.tokenVersion).toBe(user.tokenVersion + 1);
      const relinked = { issuer: identity.issuer, subject: 'sub-again' };
      const [linked, unlinked] = await Promise.all([users().linkOidcIdentity(user.id, relinked, instant(61)), users().unlinkOidcIdentity(user.id, instant(62))]);
      const stored = await users().findById(user.id);
      expect([linked, unlinked]).toContainEqual(stored);
      expect(stored?.tokenVersion).toBe(user.tokenVersion + 1 + [linked, unlinked].filter((r) => r !== null).length);
    });
  });
}

describe.each(STORE_FACTORIES)('UserRepository contract ($name)', (factory) => userRepositoryContract(factory));
