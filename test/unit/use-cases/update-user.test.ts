import { beforeEach, describe, expect, it } from 'vitest';
import { admin, alice, aWorld, errorOf, type World } from '../../support/kit.js';

let w: World;
beforeEach(() => {
  w = aWorld();
});

describe('UpdateUser', () => {
  it('changes roles (without repeats) and the disabled flag, and stores the update time', async () => {
    const { user } = await w.storeUser({ roles: ['user'] });
    w.clock.advance(60_000);
    const updated = await w.updateUser.execute(admin, { id: user.id, roles: ['reader', 'reader'], disabled: true });
    expect(updated).toEqual({ user: { ...user, roles: ['reader'], disabled: true, tokenVersion: 1, updatedAt: w.clock.now() }, lockedUntil: null });
    expect(await w.store.users.findById(user.id)).toEqual(updated.user);
  });

  it('leaves out fields alone', async () => {
    const { user } = await w.storeUser({ roles: ['reader'], disabled: true });
    expect((await w.updateUser.execute(admin, { id: user.id, disabled: false })).user).toMatchObject({ roles: ['reader'], disabled: false });
    expect((await w.updateUser.execute(admin, { id: user.id, roles: ['user'] })).user).toMatchObject({ roles: ['user'], disabled: false });
  });

  it('refuses to demote or disable the last active admin with last_admin', async () => {
    const { user: only } = await w.storeUser({ roles: ['admin'] });
    await w.storeUser({ roles: ['admin'], disabled: true });
    expect(await errorOf(w.updateUser.execute(admin, { id: only.id, roles: ['user'] }))).toMatchObject({ kind: 'conflict', code: 'last_admin' });
    expect(await errorOf(w.updateUser.execute(admin, { id: only.id, disabled: true }))).toMatchObject({ kind: 'conflict', code: 'last_admin' });
    expect(await w.store.users.findById(only.id)).toEqual(only);
  });

  it('lets an admin step down once another active admin exists', async () => {
    const { user: first } = await w.storeUser({ roles: ['admin'] });
    await w.storeUser({ roles: ['admin'] });
    expect((await w.updateUser.execute(admin, { id: first.id, roles: ['user'] })).user.roles).toEqual(['user']);
  });

  it('answers user_not_found for an unknown id, and permission_denied for a non-admin', async () => {
    const { user } = await w.storeUser();
    expect(await errorOf(w.updateUser.execute(admin, { id: 'ghost', disabled: true }))).toMatchObject({ kind: 'not_found', code: 'user_not_found' });
    expect(await errorOf(w.updateUser.execute(alice, { id: user.id, roles: ['admin'] }))).toMatchObject({ kind: 'forbidden', code: 'permission_denied' });
    expect(await w.store.users.findById(user.id)).toEqual(user);
  });
});
