import { beforeEach, describe, expect, it } from 'vitest';
import { StartOidcLink } from '../../../src/application/use-cases/start-oidc-link.js';
import { oidcStateKey, type OidcLoginBinding } from '../../../src/application/use-cases/start-oidc-login.js';
import { actorFor, OPERATOR_CREDENTIAL } from '../../../src/domain/actor.js';
import { admin, aWorld, errorOf, someClaims, TEST_ISSUER, type World } from '../../support/kit.js';

let w: World;
let startLink: StartOidcLink;
beforeEach(() => {
  w = aWorld();
  startLink = new StartOidcLink(w.store.users, w.startOidcLogin);
  w.oidc.claims = someClaims({ subject: 'sub-erin', email: 'erin.work@example.test', emailVerified: true, username: 'erin-sso' });
});

const ADDRESS = '203.0.113.7';
const callback = (binding: OidcLoginBinding) =>
  w.completeOidcLogin.execute({ binding, state: binding.state, search: `?code=provider-code&state=${binding.state}`, clientAddress: ADDRESS });
const signedIn = async (binding: OidcLoginBinding) => {
  const result = await callback(binding);
  if (result.kind !== 'signed_in') throw new Error(`expected signed_in, got ${result.kind}`);
  return result;
};

describe('StartOidcLink and the callback that finishes it', () => {
  it('records a link intent for the signed-in account under the state, and sends the browser to the provider', async () => {
    const { user, actor } = await w.storeUser({ username: 'erin' });
    const started = await startLink.execute(actor, { returnTo: '/settings', clientAddress: ADDRESS });
    expect(new URL(started.redirectUrl).searchParams.get('state')).toBe(started.binding.state);
    expect(started.binding.returnTo).toBe('/settings');
    expect(await w.store.oneTimeCodes.take(oidcStateKey(w.secrets.digest(started.binding.state)), w.clock.now())).toBe(`link:${user.id}`);
  });

  it('links the identity to the account with a password and signs it in; SSO sign-ins then land there', async () => {
    const { user, actor } = await w.storeUser({ username: 'erin' });
    const linked = await signedIn((await startLink.execute(actor, { clientAddress: ADDRESS })).binding);
    expect(linked.user).toEqual({ ...user, oidc: { issuer: TEST_ISSUER, subject: 'sub-erin' }, updatedAt: w.clock.now() });
    expect((await w.authenticate.execute(linked.token.token)).user.id).toBe(user.id);
    const later = await signedIn((await w.startOidcLogin.execute({ clientAddress: ADDRESS })).binding);
    expect(later.user.id).toBe(user.id);
    expect(await w.store.users.count()).toBe(1);
  });

  it('refuses to link an identity that already belongs to another account, changing neither', async () => {
    const holder = await w.storeUser({ oidc: { issuer: TEST_ISSUER, subject: 'sub-erin' } });
    const { user, actor } = await w.storeUser();
    const started = await startLink.execute(actor, { clientAddress: ADDRESS });
    expect(await errorOf(callback(started.binding))).toMatchObject({ kind: 'conflict', code: 'oidc_identity_already_linked' });
    expect(await w.store.users.findById(user.id)).toEqual(user);
    expect(await w.store.users.findById(holder.user.id)).toEqual(holder.user);
  });

  it('is refused up front for an account that already has an identity, and records no state', async () => {
    const { actor } = await w.storeUser({ oidc: { issuer: TEST_ISSUER, subject: 'sub-own' } });
    expect(await errorOf(startLink.execute(actor, { clientAddress: ADDRESS }))).toMatchObject({ kind: 'conflict', code: 'oidc_account_already_linked' });
    expect(await w.store.oneTimeCodes.purgeExpired(new Date(w.clock.now().getTime() + 86_400_000))).toBe(0);
  });

  it('is refused for a disabled or deleted account', async () => {
    const { actor: disabled } = await w.storeUser({ disabled: true });
    expect(await errorOf(startLink.execute(disabled, { clientAddress: ADDRESS }))).toMatchObject({ kind: 'forbidden', code: 'account_disabled' });
    const ghost = actorFor({ id: 'ghost', username: 'ghost', roles: ['user'] }, OPERATOR_CREDENTIAL);
    expect(await errorOf(startLink.execute(ghost, { clientAddress: ADDRESS }))).toMatchObject({ kind: 'not_found', code: 'user_not_found' });
  });

  it('links nothing when the account is disabled between the start and the callback', async () => {
    const { user, actor } = await w.storeUser();
    const started = await startLink.execute(actor, { clientAddress: ADDRESS });
    await w.updateUser.execute(admin, { id: user.id, disabled: true });
    expect(await errorOf(callback(started.binding))).toMatchObject({ kind: 'forbidden', code: 'account_disabled' });
    expect((await w.store.users.findById(user.id))?.oidc).toBeNull();
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
