import { beforeEach, describe, expect, it } from 'vitest';
import { oidcStateKey, type OidcLoginBinding } from '../../../src/application/use-cases/start-oidc-login.js';
import { actorFor, OPERATOR_CREDENTIAL } from '../../../src/domain/actor.js';
import { admin, aWorld, errorOf, someClaims, TEST_ISSUER, type World } from '../../support/kit.js';

let w: World;
beforeEach(() => {
  w = aWorld();
  w.oidc.claims = someClaims({ subject: 'sub-erin', email: 'erin.work@example.test', emailVerified: true, username: 'erin-sso' });
});

const ADDRESS = '203.0.113.7';
const PASSWORD = 'erin password 1';
const callback = (binding: OidcLoginBinding) =>
  w.completeOidcLogin.execute({ binding, state: binding.state, search: `?code=provider-code&state=${binding.state}`, clientAddress: ADDRESS });
const signedIn = async (binding: OidcLoginBinding) => {
  const result = await callback(binding);
  if (result.kind !== 'signed_in') throw new Error(`expected signed_in, got ${result.kind}`);
  return result;
};
const erin = async (overrides = {}) => w.storeUser({ username: 'erin', passwordHash: await w.hasher.hash(PASSWORD), ...overrides });
const link = (actor: Parameters<World['startOidcLink']['execute']>[0], given: { currentPassword?: string; returnTo?: string } = { currentPassword: PASSWORD }) =>
  w.startOidcLink.execute(actor, { ...given, clientAddress: ADDRESS });
const statesRecorded = () => w.store.oneTimeCodes.purgeExpired(new Date(w.clock.now().getTime() + 86_400_000));

describe('StartOidcLink and the callback that finishes it', () => {
  it('records a link intent for the signed-in account and its token version under the state, and sends the browser to the provider', async () => {
    const { user, actor } = await erin();
    const started = await link(actor, { currentPassword: PASSWORD, returnTo: '/settings' });
    expect(new URL(started.redirectUrl).searchParams.get('state')).toBe(started.binding.state);
    expect(started.binding.returnTo).toBe('/settings');
    expect(await w.store.oneTimeCodes.take(oidcStateKey(w.secrets.digest(started.binding.state)), w.clock.now())).toBe(`link:${user.tokenVersion}:${user.id}`);
  });

  it('links the identity to the account, since now, ends the account\'s other sessions and signs it in afresh; SSO sign-ins then land there', async () => {
    const { user, actor } = await erin();
    const before = w.tokens.issue(user);
    const linked = await signedIn((await link(actor)).binding);
    expect(linked.user).toEqual({ ...user, oidc: { issuer: TEST_ISSUER, subject: 'sub-erin', linkedAt: w.clock.now() }, tokenVersion: user.tokenVersion + 1, updatedAt: w.clock.now() });
    expect(await errorOf(w.authenticate.execute(before.token))).toMatchObject({ code: 'invalid_token' });
    expect((await w.authenticate.execute(linked.token.token)).user.id).toBe(user.id);
    const later = await signedIn((await w.startOidcLogin.execute({ clientAddress: ADDRESS })).binding);
    expect(later.user.id).toBe(user.id);
    expect(await w.store.users.count()).toBe(1);
  });

  it('needs the current password of an account that has one: 403 invalid_current_password without it or with a wrong one, no state recorded', async () => {
    const { actor } = await erin();
    for (const given of [{}, { currentPassword: '' }, { currentPassword: 'not my password' }]) {
      expect(await errorOf(link(actor, given))).toMatchObject({ kind: 'forbidden', code: 'invalid_current_password' });
    }
    expect(await statesRecorded()).toBe(0);
  });

  it('counts guesses as the password change does: after the account policy, even the right password is 429', async () => {
    const { actor } = await erin();
    for (let i = 0; i < 3; i++) await errorOf(link(actor, { currentPassword: `guess ${i}` }));
    expect(await errorOf(link(actor))).toMatchObject({ kind: 'rate_limited' });
    expect(await w.changePassword.execute(actor, { currentPassword: PASSWORD, newPassword: 'another password' }).catch((e: { code: string }) => e.code)).toBe('rate_limited');
  });

  it('lets an account without a password (made for SSO) link without one', async () => {
    const { actor } = await w.storeUser({ username: 'sso-only', passwordHash: null });
    expect((await signedIn((await link(actor, {})).binding)).user.oidc).toMatchObject({ issuer: TEST_ISSUER, subject: 'sub-erin' });
  });

  it('is never started through a personal API key (403)', async () => {
    const { user, actor } = await erin();
    const { secret } = await w.createApiKey.execute(actor, { ownerId: user.id, name: 'k' });
    const { actor: keyActor } = await w.authenticate.execute(secret, ADDRESS);
    expect(await errorOf(link(keyActor))).toMatchObject({ kind: 'forbidden', code: 'permission_denied' });
  });

  it('links nothing when the account\'s sessions were revoked between the start and the callback (a password change)', async () => {
    const { user, actor } = await erin();
    const started = await link(actor);
    await w.store.users.setPassword(user.id, await w.hasher.hash('changed by the owner'), w.clock.now());
    expect(await errorOf(callback(started.binding))).toMatchObject({ code: 'oidc_callback_invalid' });
    expect((await w.store.users.findById(user.id))?.oidc).toBeNull();
  });

  it('refuses to link an identity that already belongs to another account, changing neither', async () => {
    const holder = await w.storeUser({ oidc: { issuer: TEST_ISSUER, subject: 'sub-erin', linkedAt: new Date(0) } });
    const { user, actor } = await erin();
    const started = await link(actor);
    expect(await errorOf(callback(started.binding))).toMatchObject({ kind: 'conflict', code: 'oidc_identity_already_linked' });
    expect(await w.store.users.findById(user.id)).toEqual(user);
    expect(await w.store.users.findById(holder.user.id)).toEqual(holder.user);
  });

  it('is refused up front for an account that already has an identity, and records no state', async () => {
    const { actor } = await erin({ oidc: { issuer: TEST_ISSUER, subject: 'sub-own', linkedAt: new Date(0) } });
    expect(await errorOf(link(actor))).toMatchObject({ kind: 'conflict', code: 'oidc_account_already_linked' });
    expect(await statesRecorded()).toBe(0);
  });

  it('is refused for a disabled or deleted account', async () => {
    const { actor: disabled } = await erin({ disabled: true });
    expect(await errorOf(link(disabled))).toMatchObject({ kind: 'unauthenticated', code: 'invalid_token' });
    const ghost = actorFor({ id: 'ghost', username: 'ghost', roles: ['user'] }, OPERATOR_CREDENTIAL);
    expect(await errorOf(link(ghost))).toMatchObject({ kind: 'not_found', code: 'user_not_found' });
  });

  it('links nothing when the account is disabled between the start and the callback', async () => {
    const { user, actor } = await erin();
    const started = await link(actor);
    await w.updateUser.execute(admin, { id: user.id, disabled: true });
    expect(await errorOf(callback(started.binding))).toMatchObject({ kind: 'forbidden', code: 'account_disabled' });
    expect((await w.store.users.findById(user.id))?.oidc).toBeNull();
  });
});

describe('UnlinkOidc and UnlinkUserOidc', () => {
  const linked = () => erin({ oidc: { issuer: TEST_ISSUER, subject: 'sub-erin', linkedAt: new Date(0) } });

  it('unlink with the current password: the identity goes, every session ends; the identity\'s next sign-in lands elsewhere', async () => {
    const { user, actor } = await linked();
    await w.unlinkOidc.execute(actor, { currentPassword: PASSWORD, clientAddress: ADDRESS });
    expect(await w.store.users.findById(user.id)).toMatchObject({ oidc: null, tokenVersion: user.tokenVersion + 1 });
    expect(await errorOf(w.authenticate.execute(w.tokens.issue(user).token))).toMatchObject({ code: 'invalid_token' });
    expect((await signedIn((await w.startOidcLogin.execute({ clientAddress: ADDRESS })).binding)).user.id).not.toBe(user.id);
  });

  it('refuses a wrong password (403), an account without one (409 password_not_set) and a key (403), changing nothing', async () => {
    const { user, actor } = await linked();
    expect(await errorOf(w.unlinkOidc.execute(actor, { currentPassword: 'wrong', clientAddress: ADDRESS }))).toMatchObject({ code: 'invalid_current_password' });
    const { secret } = await w.createApiKey.execute(actor, { ownerId: user.id, name: 'k' });
    const { actor: keyActor } = await w.authenticate.execute(secret, ADDRESS);
    expect(await errorOf(w.unlinkOidc.execute(keyActor, { currentPassword: PASSWORD, clientAddress: ADDRESS }))).toMatchObject({ code: 'permission_denied' });
    const { user: ssoOnly, actor: ssoActor } = await w.storeUser({ passwordHash: null, oidc: { issuer: TEST_ISSUER, subject: 'sub-sso', linkedAt: new Date(0) } });
    expect(await errorOf(w.unlinkOidc.execute(ssoActor, { currentPassword: 'x', clientAddress: ADDRESS }))).toMatchObject({ kind: 'conflict', code: 'password_not_set' });
    expect(await w.store.users.findById(user.id)).toEqual(user);
    expect(await w.store.users.findById(ssoOnly.id)).toEqual(ssoOnly);
  });

  it('lets an admin unlink any account, ending its sessions; others get 403, an unknown account 404', async () => {
    const { user, actor } = await linked();
    expect(await errorOf(w.unlinkUserOidc.execute(actor, user.id))).toMatchObject({ code: 'permission_denied' });
    expect(await errorOf(w.unlinkUserOidc.execute(admin, 'nobody'))).toMatchObject({ code: 'user_not_found' });
    await w.unlinkUserOidc.execute(admin, user.id);
    expect(await w.store.users.findById(user.id)).toMatchObject({ oidc: null, tokenVersion: user.tokenVersion + 1 });
  });
});

describe('CompleteOidcLogin: the pre-account takeover of issue 13', () => {
  it('refuses the victim\'s first SSO sign-in into a squatter\'s password account: 409 account_exists, nothing created or changed', async () => {
    const squatter = await w.registerUser.execute({ username: 'squatter', email: 'erin.work@example.test', password: 'squatter password' });
    const stored = await w.store.users.findById(squatter.user.id);
    const binding = (await w.startOidcLogin.execute({ clientAddress: ADDRESS })).binding;
    expect(await errorOf(callback(binding))).toMatchObject({ kind: 'conflict', code: 'account_exists' });
    expect(await w.store.users.findById(squatter.user.id)).toEqual(stored);
    expect(await w.store.users.findByOidcIdentity(TEST_ISSUER, 'sub-erin')).toBeNull();
    expect(await w.store.users.count()).toBe(1);
  });
});
