import { describe, expect, it } from 'vitest';
import { ConflictError } from '../../src/domain/errors.js';
import { aUser, instant } from '../support/builders.js';
import type { StoreFactory } from './stores.js';
import { itWhere, STORE_FACTORIES, useStore } from './stores.js';

function userRepositoryContract(factory: StoreFactory): void {
  const store = useStore(factory);
  const users = () => store().users;

  it('creates a user and finds it by id, username, e-mail and OIDC identity', async () => {
    const user = aUser({ oidc: { issuer: 'https://idp.test', subject: 'sub-1' }, roles: ['admin', 'user'] });
    await users().create(user);
    expect(await users().findById(user.id)).toEqual(user);
    expect(await users().findByUsername(user.username)).toEqual(user);
    expect(await users().findByEmail(user.email)).toEqual(user);
    expect(await users().findByOidcIdentity('https://idp.test', 'sub-1')).toEqual(user);
  });

  it('returns null for absent users and false when deleting one', async () => {
    await users().create(aUser({ oidc: { issuer: 'https://idp.test', subject: 's' } }));
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
    const oidc = { issuer: 'https://idp.test', subject: 'abc' };
    await users().create(aUser({ oidc }));
    await users().create(aUser({ oidc: null }));
    await users().create(aUser({ oidc: null }));
    await users().create(aUser({ oidc: { issuer: 'https://other.test', subject: 'abc' } }));
    await expect(users().create(aUser({ oidc }))).rejects.toBeInstanceOf(ConflictError);
    expect(await users().count()).toBe(4);
  });

  itWhere(factory, 'uniqueIndexes')('updates every field and keeps the unique rules on update', async () => {
    const user = aUser();
    const other = aUser({ username: 'taken', email: 'taken@example.test' });
    await users().create(user);
    await users().create(other);
    const changed = { ...user, username: 'Renamed', passwordHash: null, roles: ['reader' as const], disabled: true,
      tokenVersion: 3, authProvider: 'oidc' as const, oidc: { issuer: 'i', subject: 's' }, updatedAt: instant(999) };
    await users().update(changed);
    expect(await users().findById(user.id)).toEqual(changed);
    expect(await users().findByUsername(user.username)).toBeNull();
    await users().update({ ...changed, username: 'RENAMED' });
    await expect(users().update({ ...changed, username: 'TAKEN' })).rejects.toMatchObject({ code: 'username_already_exists' });
    await expect(users().update({ ...changed, email: 'taken@example.test' })).rejects.toMatchObject({ code: 'email_already_exists' });
    expect((await users().findById(user.id))?.username).toBe('RENAMED');
  });

  it('does not create a user when updating an unknown id', async () => {
    await users().update(aUser({ id: 'ghost' }));
    expect(await users().findById('ghost')).toBeNull();
    expect(await users().count()).toBe(0);
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

    it('links an identity to an account that has none, changing nothing else', async () => {
      const user = aUser({ passwordHash: null, oidc: null, updatedAt: instant(1) });
      await users().create(user);
      const linked = await users().linkOidcIdentity(user.id, identity, instant(50));
      expect(linked).toEqual({ ...user, oidc: identity, updatedAt: instant(50) });
      expect(await users().findById(user.id)).toEqual(linked);
      expect(await users().findByOidcIdentity(identity.issuer, identity.subject)).toEqual(linked);
    });

    it('returns null and changes nothing when the account already has an identity or does not exist', async () => {
      const user = aUser({ oidc: { issuer: 'https://idp.test', subject: 'sub-own' } });
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
      const holder = aUser({ oidc: identity });
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
}

describe.each(STORE_FACTORIES)('UserRepository contract ($name)', (factory) => userRepositoryContract(factory));
