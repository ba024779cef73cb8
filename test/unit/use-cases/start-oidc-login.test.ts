import { beforeEach, describe, expect, it } from 'vitest';
import { oidcStateKey } from '../../../src/application/use-cases/start-oidc-login.js';
import { UnavailableError } from '../../../src/domain/errors.js';
import { aWorld, DEFAULT_WORLD_SETTINGS, errorOf, TEST_ISSUER, type World } from '../../support/kit.js';

let w: World;
beforeEach(() => {
  w = aWorld();
});

const ADDRESS = '203.0.113.7';
const TTL = DEFAULT_WORLD_SETTINGS.oidcFlow.stateTtlMs;
const stateKey = (state: string) => oidcStateKey(w.secrets.digest(state));

describe('StartOidcLogin', () => {
  it("sends the browser to the provider with a fresh state, nonce and the verifier's S256 challenge", async () => {
    const started = await w.startOidcLogin.execute({ clientAddress: ADDRESS });
    const { state, nonce, codeVerifier } = started.binding;
    expect(new Set([state, nonce, codeVerifier]).size).toBe(3);
    const url = new URL(started.redirectUrl);
    expect(url.origin).toBe(TEST_ISSUER);
    expect(Object.fromEntries(url.searchParams)).toEqual({ state, nonce, code_challenge: w.secrets.digest(codeVerifier) });
    expect(started.expiresInMs).toBe(TTL);
  });

  it('records the state server-side, by digest, for single use until it expires', async () => {
    const { binding } = await w.startOidcLogin.execute({ clientAddress: ADDRESS });
    expect(await w.store.oneTimeCodes.take(binding.state, w.clock.now())).toBeNull();
    expect(await w.store.oneTimeCodes.take(stateKey(binding.state), w.clock.now())).toBe('pending');
    const late = await w.startOidcLogin.execute({ clientAddress: ADDRESS });
    expect(await w.store.oneTimeCodes.take(stateKey(late.binding.state), new Date(w.clock.now().getTime() + TTL + 1))).toBeNull();
  });

  it('keeps a safe return target and drops an unsafe one', async () => {
    const keep = ['/library?shelf=1', 'https://stacks.example/app'];
    for (const returnTo of keep) expect((await w.startOidcLogin.execute({ returnTo, clientAddress: ADDRESS })).binding.returnTo).toBe(returnTo);
    for (const returnTo of ['https://evil.example/', '//evil.example/x', 'javascript:alert(1)', '/%2F%2Fevil.example']) {
      expect((await w.startOidcLogin.execute({ returnTo, clientAddress: ADDRESS })).binding.returnTo).toBeNull();
    }
  });

  it('is rate_limited per address past the attempt policy', async () => {
    const strict = aWorld({ oidcPolicy: { maxFailures: 2, windowMs: 60_000, blockMs: 60_000, maxBlockMs: 60_000 } });
    await strict.startOidcLogin.execute({ clientAddress: ADDRESS });
    await strict.startOidcLogin.execute({ clientAddress: ADDRESS });
    expect(await errorOf(strict.startOidcLogin.execute({ clientAddress: ADDRESS }))).toMatchObject({ kind: 'rate_limited', code: 'rate_limited' });
  });

  it('passes on oidc_unavailable when the provider cannot be reached, recording no state', async () => {
    w.oidc.failure = new UnavailableError('oidc_unavailable', 'The identity provider is unreachable.');
    expect(await errorOf(w.startOidcLogin.execute({ clientAddress: ADDRESS }))).toMatchObject({ kind: 'unavailable', code: 'oidc_unavailable' });
    expect(await w.store.oneTimeCodes.purgeExpired(new Date(w.clock.now().getTime() + TTL + 1))).toBe(0);
  });
});
