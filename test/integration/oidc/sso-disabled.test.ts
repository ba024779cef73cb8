import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { OidcStateCookie } from '../../../src/adapters/http/oidc-state-cookie.js';
import { PORTS } from '../../../src/bootstrap/tokens.js';
import { CompleteOidcLogin, ExchangeOidcCode, OidcAccounts, OidcAttemptLimiter, StartOidcLink, StartOidcLogin } from '../../../src/index.js';
import { bearer, registerUser, startTestApp, type TestApp } from '../../support/test-app.js';
import { HOSTILE_CLIENT_ID, HostileProvider } from './support/hostile-provider.js';

let t: TestApp | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

describe('single sign-on switched off (no OIDC_ISSUER)', () => {
  it('answers 404 oidc_disabled on all four paths, as problem+json', async () => {
    t = await startTestApp();
    const session = await registerUser(t.app, 'nosso');
    const answers = {
      link: await request(t.app).post('/api/auth/oidc/link').set(bearer(session.token)).send({}),
      login: await request(t.app).get('/api/auth/oidc/login?return_to=/x'),
      callback: await request(t.app).get('/api/auth/oidc/callback?code=a&state=b'),
      token: await request(t.app).post('/api/auth/oidc/token').send({ code: 'abc' }),
    };
    for (const [path, res] of Object.entries(answers)) {
      expect(res.status, path).toBe(404);
      expect(res.type).toBe('application/problem+json');
      expect(res.body.code).toBe('oidc_disabled');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    expect((await request(t.app).get('/api/auth/config')).body.oidc_enabled).toBe(false);
  });

  it('still documents the paths in /openapi.json', async () => {
    t = await startTestApp();
    const doc = (await request(t.app).get('/openapi.json')).body;
    expect(doc.paths['/api/auth/oidc/login'].get.responses['302']).toBeDefined();
    expect(doc.paths['/api/auth/oidc/callback'].get.responses['200']).toBeDefined();
    expect(doc.paths['/api/auth/oidc/token'].post.requestBody).toBeDefined();
    expect(doc.paths['/api/auth/oidc/link'].post.security).toEqual([{ bearerAuth: [] }]);
  });
});

describe('single sign-on switched on', () => {
  it('starts even when the provider is unreachable (discovery is lazy) and reports both login methods', async () => {
    t = await startTestApp({ OIDC_ISSUER: 'http://127.0.0.1:9', OIDC_CLIENT_ID: 'stacks', OIDC_ALLOW_HTTP: 'true', LOCAL_LOGIN: 'false' });
    expect((await request(t.app).get('/api/auth/config')).body).toEqual({
      registration_enabled: false, local_login_enabled: false, oidc_enabled: true,
    });
    const res = await request(t.app).get('/api/auth/oidc/login');
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('oidc_unavailable');
    expect(res.headers['set-cookie']).toBeUndefined();
  });

  it('resolves every OIDC dependency from the container', async () => {
    t = await startTestApp({ OIDC_ISSUER: 'https://idp.example', OIDC_CLIENT_ID: 'stacks' });
    const { OidcProvider, SecretGenerator } = PORTS;
    const oidc = { OidcProvider, SecretGenerator, OidcAccounts, OidcAttemptLimiter, OidcStateCookie, StartOidcLogin, CompleteOidcLogin, ExchangeOidcCode, StartOidcLink };
    for (const [name, token] of Object.entries(oidc)) expect(t.container.di.resolve<unknown>(token), name).toBeDefined();
  });

  it('marks the sign-in cookie Secure when PUBLIC_URL is https', async () => {
    const op = await new HostileProvider().start();
    try {
      t = await startTestApp({ OIDC_ISSUER: op.issuer, OIDC_CLIENT_ID: HOSTILE_CLIENT_ID, OIDC_ALLOW_HTTP: 'true', PUBLIC_URL: 'https://books.example' });
      const res = await request(t.app).get('/api/auth/oidc/login');
      expect(res.status).toBe(302);
      expect(new URL(res.headers.location as string).searchParams.get('redirect_uri')).toBe('https://books.example/api/auth/oidc/callback');
      const cookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).join('\n');
      expect(cookie).toMatch(/^stacks_oidc=[\w-]+\.[\w-]+\.[\w-]+; Max-Age=600; Path=\/api\/auth\/oidc; Expires=[^;]+; HttpOnly; Secure; SameSite=Lax$/);
    } finally {
      await op.close();
    }
  });
});
