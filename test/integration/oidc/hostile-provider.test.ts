import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OIDC_ATTEMPT_POLICY } from '../../../src/domain/login-throttle.js';
import type { TestApp } from '../../support/test-app.js';
import { HOSTILE_CLIENT_ID, HostileProvider } from './support/hostile-provider.js';
import { Browser, openStacksServer, type StacksServer } from './support/stacks-server.js';

let stacks: StacksServer;
let op: HostileProvider;
let t: TestApp;

beforeEach(async () => {
  stacks = await openStacksServer();
  op = await new HostileProvider().start();
  t = await stacks.start({
    OIDC_ISSUER: op.issuer,
    OIDC_CLIENT_ID: HOSTILE_CLIENT_ID,
    OIDC_CLIENT_SECRET: 'hostile-client-secret',
    OIDC_ALLOW_HTTP: 'true',
  });
});
afterEach(async () => {
  await stacks.close();
  await op.close();
});

/** Starts a sign-in, lets the provider answer at once, and returns the callback's response. */
async function signIn() {
  const browser = new Browser();
  const start = await browser.request(`${stacks.url}/api/auth/oidc/login`);
  if (start.status !== 302) return start;
  const atProvider = await browser.request(start.location as string);
  return browser.request(atProvider.location as string);
}

const problem = (res: { body: string }) => JSON.parse(res.body) as { code: string; status: number };
const hour = 3600;

describe('ID token validation against a hostile provider', () => {
  it('accepts a correct ID token (control), with PKCE S256 checked by the provider', async () => {
    const res = await signIn();
    expect(res.status, res.body).toBe(200);
    expect(JSON.parse(res.body).user.email).toBe('someone@example.test');
    expect(op.lastTokenRequest?.get('code_verifier')).toMatch(/^[A-Za-z0-9_-]{43,128}$/);
  });

  const refused: Record<string, Partial<HostileProvider['recipe']>> = {
    'an unsigned token (alg none)': { signing: 'none' },
    'a signature from a key not in the JWKS': { signing: 'other' },
    'a wrong audience': { claims: (d) => ({ ...d, aud: 'someone-else' }) },
    'an extra untrusted audience': { claims: (d) => ({ ...d, aud: [HOSTILE_CLIENT_ID, 'someone-else'] }) },
    'a wrong nonce': { claims: (d) => ({ ...d, nonce: 'not-the-nonce-we-sent' }) },
    'no nonce': { claims: ({ nonce: _n, ...d }) => d },
    'a wrong issuer': { claims: (d) => ({ ...d, iss: 'http://127.0.0.1:1' }) },
    'no issuer': { claims: ({ iss: _i, ...d }) => d },
    'an expired token': { claims: (d) => ({ ...d, iat: (d.iat as number) - 2 * hour, exp: (d.iat as number) - hour }) },
    'no expiry': { claims: ({ exp: _e, ...d }) => d },
    'a token issued a week ago (still unexpired)': { claims: (d) => ({ ...d, iat: (d.iat as number) - 7 * 24 * hour }) },
    'a subject longer than 255 characters': { claims: (d) => ({ ...d, sub: 's'.repeat(300) }) },
  };
  it.each(Object.entries(refused))('refuses %s with 400 and issues no token', async (_label, recipe) => {
    op.recipe = { claims: (d) => d, ...recipe };
    const res = await signIn();
    expect(res.status, res.body).toBe(400);
    expect(problem(res).code).toBe('oidc_callback_invalid');
    expect(res.body).not.toContain('access_token');
  });

  it('refuses a wrong `iss` on the authorization response when the provider advertises it (RFC 9207)', async () => {
    op.discovery = (d) => ({ status: 200, body: { ...d, authorization_response_iss_parameter_supported: true } });
    op.callbackExtras = { iss: 'http://127.0.0.1:1' };
    const res = await signIn();
    expect(res.status).toBe(400);
    expect(problem(res).code).toBe('oidc_callback_invalid');
  });

  it('keeps only well-formed claims: an e-mail object and a 1 MB name do not break sign-in (OIDC-07)', async () => {
    op.recipe = { claims: (d) => ({ ...d, email: { $ne: null }, name: 'n'.repeat(1024 * 1024), preferred_username: ['x'] }) };
    const res = await signIn();
    expect(res.status, res.body.slice(0, 200)).toBe(200);
    const user = JSON.parse(res.body).user;
    expect(user.email).toMatch(/@sso\.invalid$/);
    expect(user.username).toBe('user');
  });
});

describe('provider failures', () => {
  it('answers 503 oidc_unavailable while the provider is down, keeps serving, and retries discovery later', async () => {
    op.down = true;
    const res = await request(t.app).get('/api/auth/oidc/login');
    expect(res.status).toBe(503);
    expect(res.type).toBe('application/problem+json');
    expect(res.body.code).toBe('oidc_unavailable');
    expect((await request(t.app).get('/healthz')).status).toBe(200);
    expect((await request(t.app).get('/api/auth/config')).status).toBe(200);
    op.down = false;
    expect((await request(t.app).get('/api/auth/oidc/login')).status).toBe(302);
  });

  it('answers 503 when the provider goes down between the redirect and the callback', async () => {
    const browser = new Browser();
    const start = await browser.request(`${stacks.url}/api/auth/oidc/login`);
    const atProvider = await browser.request(start.location as string);
    op.down = true;
    const res = await browser.request(atProvider.location as string);
    expect(res.status).toBe(503);
    expect(problem(res).code).toBe('oidc_unavailable');
  });

  it('answers 502 oidc_provider_error for a broken discovery document or an issuer mismatch', async () => {
    op.discovery = () => ({ status: 500, body: { oops: true } });
    const broken = await request(t.app).get('/api/auth/oidc/login');
    expect(broken.status).toBe(502);
    expect(broken.body.code).toBe('oidc_provider_error');
    op.discovery = (d) => ({ status: 200, body: { ...d, issuer: 'http://127.0.0.1:1' } });
    expect((await request(t.app).get('/api/auth/oidc/login')).body.code).toBe('oidc_provider_error');
  });

  it('answers 502 when the token endpoint fails, and 400 when it refuses the code', async () => {
    op.tokenAnswer = { status: 500, body: 'not json' };
    const failed = await signIn();
    expect(failed.status).toBe(502);
    expect(problem(failed).code).toBe('oidc_provider_error');
    op.tokenAnswer = { status: 400, body: { error: 'invalid_grant' } };
    const refused = await signIn();
    expect(refused.status).toBe(400);
    expect(problem(refused).code).toBe('oidc_callback_invalid');
  });

  it('refuses the provider’s error callback (access_denied) with 400', async () => {
    op.callbackExtras = { error: 'access_denied' };
    const res = await signIn();
    expect(res.status).toBe(400);
    expect(problem(res).code).toBe('oidc_callback_invalid');
  });
});

describe('rate limiting (OIDC-08)', () => {
  it('limits sign-in starts and callbacks per client address with 429 and Retry-After', async () => {
    const limit = OIDC_ATTEMPT_POLICY.maxFailures;
    const ok = await signIn();
    expect(ok.status).toBe(200);
    for (let i = 2; i < limit; i++) expect((await request(t.app).get('/api/auth/oidc/login')).status, `start ${i}`).toBe(302);
    const blocked = await request(t.app).get('/api/auth/oidc/login');
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe('rate_limited');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    const callback = await request(t.app).get('/api/auth/oidc/callback?code=x&state=y');
    expect(callback.status).toBe(429);
    expect((await request(t.app).get('/healthz')).status).toBe(200);
  });
});
