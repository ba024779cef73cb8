import { beforeEach, describe, expect, it } from 'vitest';
import type { OidcLoginBinding } from '../../../src/application/use-cases/start-oidc-login.js';
import { BadGatewayError } from '../../../src/domain/errors.js';
import { aWorld, DEFAULT_WORLD_SETTINGS, errorOf, someClaims, TEST_ISSUER, type World } from '../../support/kit.js';

let w: World;
beforeEach(() => {
  w = aWorld();
  w.oidc.claims = someClaims({ subject: 'sub-ida', email: 'ida@example.test', emailVerified: true, username: 'ida' });
});

const ADDRESS = '203.0.113.7';
const start = async (returnTo?: string) => (await w.startOidcLogin.execute({ returnTo, clientAddress: ADDRESS })).binding;
const callback = (binding: OidcLoginBinding | null, state = binding?.state) =>
  w.completeOidcLogin.execute({ binding, state, search: `?code=provider-code&state=${state}`, clientAddress: ADDRESS });

describe('CompleteOidcLogin', () => {
  it('creates the SSO account on first sign-in and signs it in with a token', async () => {
    const result = await callback(await start());
    if (result.kind !== 'signed_in') throw new Error(`expected signed_in, got ${result.kind}`);
    expect(result.user).toMatchObject({ username: 'ida', email: 'ida@example.test', authProvider: 'oidc', oidc: { issuer: TEST_ISSUER, subject: 'sub-ida', linkedAt: w.clock.now() } });
    expect(await w.store.users.findByOidcIdentity(TEST_ISSUER, 'sub-ida')).toEqual(result.user);
    expect((await w.authenticate.execute(result.token.token)).user.id).toBe(result.user.id);
  });

  it('with a return target, redirects there with a one-time code that ExchangeOidcCode trades once', async () => {
    const result = await callback(await start('/library#top'));
    if (result.kind !== 'redirect') throw new Error(`expected redirect, got ${result.kind}`);
    const location = new URL(result.location, 'https://stacks.example');
    expect(location.pathname + location.hash).toBe('/library#top');
    const code = location.searchParams.get('code') ?? '';
    const { user } = await w.exchangeOidcCode.execute({ code });
    expect(user.oidc?.subject).toBe('sub-ida');
    expect(await errorOf(w.exchangeOidcCode.execute({ code }))).toMatchObject({ kind: 'bad_request', code: 'invalid_code' });
  });

  it('is oidc_callback_invalid without the cookie binding or with a state that does not match it', async () => {
    const binding = await start();
    expect(await errorOf(callback(null, binding.state))).toMatchObject({ kind: 'bad_request', code: 'oidc_callback_invalid' });
    expect(await errorOf(callback(binding, 'other-state'))).toMatchObject({ kind: 'bad_request', code: 'oidc_callback_invalid' });
    const withoutState = w.completeOidcLogin.execute({ binding, state: undefined, search: '?code=provider-code', clientAddress: ADDRESS });
    expect(await errorOf(withoutState)).toMatchObject({ kind: 'bad_request', code: 'oidc_callback_invalid' });
    expect(await w.store.users.count()).toBe(0);
  });

  it('is oidc_callback_invalid for a replayed or expired sign-in', async () => {
    const binding = await start();
    await callback(binding);
    expect(await errorOf(callback(binding))).toMatchObject({ kind: 'bad_request', code: 'oidc_callback_invalid' });
    const late = await start();
    w.clock.advance(DEFAULT_WORLD_SETTINGS.oidcFlow.stateTtlMs + 1);
    expect(await errorOf(callback(late))).toMatchObject({ kind: 'bad_request', code: 'oidc_callback_invalid' });
  });

  it('fails when the provider refuses the exchange (a verifier that does not match the challenge) or answers badly', async () => {
    const binding = await start();
    expect(await errorOf(callback({ ...binding, codeVerifier: 'forged-verifier' }))).toMatchObject({ kind: 'bad_request', code: 'oidc_callback_invalid' });
    const next = await start();
    w.oidc.failure = new BadGatewayError('oidc_provider_error', 'The identity provider answered badly.');
    expect(await errorOf(callback(next))).toMatchObject({ kind: 'bad_gateway', code: 'oidc_provider_error' });
    expect(await w.store.users.count()).toBe(0);
  });

  it('is account_disabled for a disabled account, issuing no token or code', async () => {
    await w.storeUser({ username: 'ida', oidc: { issuer: TEST_ISSUER, subject: 'sub-ida', linkedAt: new Date(0) }, disabled: true });
    expect(await errorOf(callback(await start()))).toMatchObject({ kind: 'forbidden', code: 'account_disabled' });
    expect(await errorOf(callback(await start('/library')))).toMatchObject({ kind: 'forbidden', code: 'account_disabled' });
  });
});
