import { beforeEach, describe, expect, it } from 'vitest';
import { admin, alice, aWorld, errorOf, GatedPasswordHasher, type World } from '../../support/kit.js';

let w: World;
beforeEach(() => {
  w = aWorld();
});

const NEW = 'a brand new password';

describe('ResetPassword', () => {
  it('sets the password, bumps the token version, and returns the stored account', async () => {
    const { user } = await w.storeUser();
    const issued = w.tokens.issue(user);
    w.clock.advance(60_000);
    const updated = await w.resetPassword.execute(admin, { userId: user.id, newPassword: NEW });
    expect(updated).toMatchObject({ id: user.id, tokenVersion: user.tokenVersion + 1, updatedAt: w.clock.now() });
    expect(await w.store.users.findById(user.id)).toEqual(updated);
    expect(await w.hasher.verify(NEW, updated.passwordHash)).toBe(true);
    expect(await errorOf(w.authenticate.execute(issued.token))).toMatchObject({ code: 'invalid_token' });
  });

  it("keeps a disable made while the new password is hashed, and answers with the stored account", async () => {
    const hasher = new GatedPasswordHasher();
    w = aWorld({ hasher });
    const { user } = await w.storeUser({ roles: ['user'] });
    const gate = hasher.pauseNextHash();
    const reset = w.resetPassword.execute(admin, { userId: user.id, newPassword: NEW });
    await gate.arrived;
    await w.updateUser.execute(admin, { id: user.id, disabled: true });
    gate.release();
    const updated = await reset;
    expect(updated).toMatchObject({ disabled: true, tokenVersion: 2 });
    expect(await w.store.users.findById(user.id)).toEqual(updated);
  });

  it('gives an SSO-only account a password', async () => {
    const { user } = await w.storeUser({ passwordHash: null, authProvider: 'oidc' });
    const updated = await w.resetPassword.execute(admin, { userId: user.id, newPassword: NEW });
    expect(await w.hasher.verify(NEW, updated.passwordHash)).toBe(true);
  });

  it('applies the password rules and changes nothing', async () => {
    const { user } = await w.storeUser();
    const error = await errorOf(w.resetPassword.execute(admin, { userId: user.id, newPassword: 'short' }));
    expect(error).toMatchObject({ kind: 'validation', code: 'validation_failed' });
    expect(error.errors?.map((e) => e.field)).toEqual(['password']);
    expect(await w.store.users.findById(user.id)).toEqual(user);
  });

  it('answers user_not_found for an unknown id, and permission_denied for a non-admin', async () => {
    const { user } = await w.storeUser();
    expect(await errorOf(w.resetPassword.execute(admin, { userId: 'ghost', newPassword: NEW }))).toMatchObject({ kind: 'not_found', code: 'user_not_found' });
    expect(await errorOf(w.resetPassword.execute(alice, { userId: user.id, newPassword: NEW }))).toMatchObject({ kind: 'forbidden', code: 'permission_denied' });
    expect(await w.store.users.findById(user.id)).toEqual(user);
  });
});
