import { beforeEach, describe, expect, it } from 'vitest';
import { admin, alice, aWorld, errorOf, type World } from '../../support/kit.js';

let w: World;
beforeEach(() => {
  w = aWorld();
});

const input = { username: 'dora', email: ' Dora@Example.TEST ', password: 'correct horse battery', roles: ['reader', 'reader'] as const };

describe('CreateUser', () => {
  it('lets an admin create an enabled local account with the given roles, without repeats', async () => {
    const user = await w.createUser.execute(admin, { ...input, roles: [...input.roles] });
    expect(user).toMatchObject({
      id: 'id-1', username: 'dora', email: 'dora@example.test', roles: ['reader'], authProvider: 'local', oidc: null,
      disabled: false, tokenVersion: 0, createdAt: w.clock.now(),
    });
    expect(await w.store.users.findByUsername('dora')).toEqual(user);
    expect(await w.hasher.verify(input.password, user.passwordHash)).toBe(true);
  });

  it('is permission_denied for anyone but an admin, and stores nothing', async () => {
    expect(await errorOf(w.createUser.execute(alice, { ...input, roles: ['admin'] }))).toMatchObject({ kind: 'forbidden', code: 'permission_denied' });
    expect(await w.store.users.count()).toBe(0);
  });

  it('names every invalid field at once: username, e-mail and an empty role list', async () => {
    const error = await errorOf(w.createUser.execute(admin, { username: 'x', email: 'not-an-address', password: input.password, roles: [] }));
    expect(error).toMatchObject({ kind: 'validation', code: 'validation_failed' });
    expect(error.errors?.map((e) => e.field)).toEqual(['username', 'email', 'roles']);
    expect(await w.store.users.count()).toBe(0);
  });

  it('applies the password rules', async () => {
    const error = await errorOf(w.createUser.execute(admin, { ...input, roles: ['user'], password: 'short' }));
    expect(error).toMatchObject({ kind: 'validation', code: 'validation_failed' });
    expect(error.errors?.map((e) => e.field)).toEqual(['password']);
  });

  it('answers username_already_exists for a taken name in any case', async () => {
    await w.storeUser({ username: 'Dora' });
    expect(await errorOf(w.createUser.execute(admin, { ...input, roles: ['user'] }))).toMatchObject({ kind: 'conflict', code: 'username_already_exists' });
    expect(await w.store.users.count()).toBe(1);
  });
});
