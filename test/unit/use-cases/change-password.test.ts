import { beforeEach, describe, expect, it } from 'vitest';
import { ChangePassword } from '../../../src/application/use-cases/change-password.js';
import { CurrentPasswordCheck } from '../../../src/application/use-cases/current-password.js';
import { actorFor, OPERATOR_CREDENTIAL } from '../../../src/domain/actor.js';
import { HeldPasswordHasher, settle } from '../../support/held-password-hasher.js';
import { admin, aWorld, DEFAULT_WORLD_SETTINGS, errorOf, GatedPasswordHasher, type World } from '../../support/kit.js';

let w: World;
beforeEach(() => {
  w = aWorld();
});

const OLD = 'old password 1';
const NEW = 'new password 2';

async function member() {
  return w.storeUser({ passwordHash: await w.hasher.hash(OLD) });
}

describe('ChangePassword and its CurrentPasswordCheck', () => {
  it('stores the new password, bumps the token version and the update time', async () => {
    const { user, actor } = await member();
    w.clock.advance(60_000);
    await w.changePassword.execute(actor, { currentPassword: OLD, newPassword: NEW });
    const stored = await w.store.users.findById(user.id);
    expect(stored).toMatchObject({ tokenVersion: user.tokenVersion + 1, updatedAt: w.clock.now() });
    expect(await w.hasher.verify(NEW, stored?.passwordHash ?? null)).toBe(true);
    expect(await w.hasher.verify(OLD, stored?.passwordHash ?? null)).toBe(false);
  });

  it('makes every token issued before stop working', async () => {
    const { user, actor } = await member();
    const before = w.tokens.issue(user);
    await w.changePassword.execute(actor, { currentPassword: OLD, newPassword: NEW });
    expect(await errorOf(w.authenticate.execute(before.token))).toMatchObject({ kind: 'unauthenticated', code: 'invalid_token' });
  });

  it('refuses a wrong current password with invalid_current_password and changes nothing', async () => {
    const { user, actor } = await member();
    const error = await errorOf(w.changePassword.execute(actor, { currentPassword: 'not it at all', newPassword: NEW }));
    expect(error).toMatchObject({ kind: 'forbidden', code: 'invalid_current_password' });
    expect(await w.store.users.findById(user.id)).toEqual(user);
  });

  it('refuses an account without a password (SSO only) with password_not_set', async () => {
    const { actor: sso } = await w.storeUser({ passwordHash: null, authProvider: 'oidc' });
    expect(await errorOf(w.changePassword.execute(sso, { currentPassword: '', newPassword: NEW }))).toMatchObject({ kind: 'conflict', code: 'password_not_set' });
  });

  it('refuses a new password that breaks the length rules, naming new_password', async () => {
    const { user, actor } = await member();
    const error = await errorOf(w.changePassword.execute(actor, { currentPassword: OLD, newPassword: 'short' }));
    expect(error).toMatchObject({ kind: 'validation', code: 'validation_failed' });
    expect(error.errors?.map((e) => e.field)).toEqual(['new_password']);
    expect((await w.store.users.findById(user.id))?.tokenVersion).toBe(user.tokenVersion);
  });

  it("changes nothing when an admin disables the account while the new password is hashed: 401, and old tokens fail for good", async () => {
    const hasher = new GatedPasswordHasher();
    w = aWorld({ hasher });
    const { user, actor } = await member();
    const before = w.tokens.issue(user);
    const gate = hasher.pauseNextHash();
    const change = errorOf(w.changePassword.execute(actor, { currentPassword: OLD, newPassword: NEW }));
    await gate.arrived;
    await w.updateUser.execute(admin, { id: user.id, disabled: true });
    gate.release();
    expect(await change).toMatchObject({ kind: 'unauthenticated', code: 'invalid_token' });
    const stored = await w.store.users.findById(user.id);
    expect(stored).toMatchObject({ disabled: true, roles: user.roles, tokenVersion: user.tokenVersion + 1, passwordHash: user.passwordHash });
    expect(await errorOf(w.loginUser.execute({ login: user.username, password: NEW, clientAddress: '192.0.2.1' }))).toMatchObject({ kind: 'unauthenticated' });
    await w.updateUser.execute(admin, { id: user.id, disabled: false });
    expect(await errorOf(w.authenticate.execute(before.token))).toMatchObject({ kind: 'unauthenticated', code: 'invalid_token' });
  });

  it('keeps a demotion made while the new password is hashed', async () => {
    const hasher = new GatedPasswordHasher();
    w = aWorld({ hasher });
    const { user, actor } = await w.storeUser({ passwordHash: await hasher.hash(OLD), roles: ['user'] });
    const gate = hasher.pauseNextHash();
    const change = w.changePassword.execute(actor, { currentPassword: OLD, newPassword: NEW });
    await gate.arrived;
    await w.updateUser.execute(admin, { id: user.id, roles: ['reader'] });
    gate.release();
    await change;
    expect(await w.store.users.findById(user.id)).toMatchObject({ roles: ['reader'], disabled: false, tokenVersion: 1 });
  });

  it('answers user_not_found when the account was deleted meanwhile', async () => {
    const ghost = actorFor({ id: 'gone', username: 'gone', roles: ['user'] }, OPERATOR_CREDENTIAL);
    expect(await errorOf(w.changePassword.execute(ghost, { currentPassword: OLD, newPassword: NEW }))).toMatchObject({ kind: 'not_found', code: 'user_not_found' });
  });

  it('blocks guesses of the current password after the account policy allows, even the right one, until the block ends', async () => {
    const { user, actor } = await member();
    for (let i = 0; i < 3; i++) expect((await errorOf(w.changePassword.execute(actor, { currentPassword: `guess ${i}`, newPassword: NEW }))).code).toBe('invalid_current_password');
    const blocked = await errorOf(w.changePassword.execute(actor, { currentPassword: OLD, newPassword: NEW }));
    expect(blocked).toMatchObject({ kind: 'rate_limited', code: 'rate_limited', retryAfterSeconds: 300 });
    expect(await w.store.users.findById(user.id)).toEqual(user);
    w.clock.advance(5 * 60_000);
    await w.changePassword.execute(actor, { currentPassword: OLD, newPassword: NEW });
    expect(await w.hasher.verify(NEW, (await w.store.users.findById(user.id))?.passwordHash ?? null)).toBe(true);
  });

  it('counts each guess before comparing: of 8 at once, 3 reach the comparison while they run and 5 are refused', async () => {
    const { actor } = await member();
    const hasher = new HeldPasswordHasher();
    const check = new CurrentPasswordCheck(hasher, w.store.throttle, w.clock, DEFAULT_WORLD_SETTINGS.loginPolicies.account, w.events);
    const change = new ChangePassword(hasher, w.store.users, w.clock, check, w.authority);
    const guesses = Promise.allSettled(Array.from({ length: 8 }, (_, i) => change.execute(actor, { currentPassword: `guess ${i}`, newPassword: NEW })));
    await settle();
    expect(hasher.checks).toBe(3);
    hasher.release();
    const codes = (await guesses).map((r) => (r.status === 'rejected' ? (r.reason as { code: string }).code : 'changed'));
    expect(codes).toEqual([...Array<string>(3).fill('invalid_current_password'), ...Array<string>(5).fill('rate_limited')]);
  });

  it('forgets earlier wrong guesses once the current password is given, and counts each account on its own', async () => {
    const { user, actor } = await member();
    const { actor: other } = await member();
    for (let i = 0; i < 2; i++) await errorOf(w.changePassword.execute(actor, { currentPassword: `guess ${i}`, newPassword: NEW }));
    for (let i = 0; i < 3; i++) await errorOf(w.changePassword.execute(other, { currentPassword: `guess ${i}`, newPassword: NEW }));
    await w.changePassword.execute(actor, { currentPassword: OLD, newPassword: NEW });
    expect(await w.store.throttle.get(`password:${user.id}`)).toBeNull();
    const signedInAgain = { ...actor, credential: { kind: 'token' as const, jti: 'after-change', tokenVersion: user.tokenVersion + 1 } };
    for (let i = 0; i < 2; i++) await errorOf(w.changePassword.execute(signedInAgain, { currentPassword: `guess ${i}`, newPassword: OLD }));
    await expect(w.changePassword.execute(signedInAgain, { currentPassword: NEW, newPassword: OLD })).resolves.toBeUndefined();
  });
});
