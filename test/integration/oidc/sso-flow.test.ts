import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { bearer, registerUser, type TestApp } from '../../support/test-app.js';
import { CLIENT_ID, CLIENT_SECRET, startRealProvider, type RealProvider } from './support/real-provider.js';
import { Browser, openStacksServer, signInUpToCallback, type StacksServer } from './support/stacks-server.js';

let stacks: StacksServer;
let op: RealProvider;
let t: TestApp;
let browser: Browser;

beforeAll(async () => {
  stacks = await openStacksServer();
  op = await startRealProvider(stacks.callbackUrl);
  t = await stacks.start({
    OIDC_ISSUER: op.issuer,
    OIDC_CLIENT_ID: CLIENT_ID,
    OIDC_CLIENT_SECRET: CLIENT_SECRET,
    OIDC_ALLOW_HTTP: 'true',
    OIDC_ROLES_CLAIM: 'groups',
    OIDC_ROLE_MAP: 'library-admins:admin,readers:reader',
  });
  await registerUser(t.app, 'founder');
});
afterAll(async () => {
  await stacks.close();
  await op.close();
});
beforeEach(() => {
  browser = new Browser();
});

/** A whole sign-in in a fresh browser, up to and including the callback. */
async function signIn(accountId: string, returnTo?: string) {
  const b = new Browser();
  return b.request(await signInUpToCallback(stacks, b, accountId, returnTo));
}
const tokenOf = async (accountId: string) => JSON.parse((await signIn(accountId)).body);

const me = (token: string) => request(t.app).get('/api/auth/me').set(bearer(token));
const JWT_SHAPE = /[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/;

describe('single sign-on against a real OpenID Provider', () => {
  it('signs a new person in, creates an SSO account with the default role, and the token works', async () => {
    op.accounts.set('sso-carol', { email: 'carol@example.test', email_verified: true, preferred_username: 'carol' });
    const callback = await signInUpToCallback(stacks, browser, 'sso-carol');
    const res = await browser.request(callback);
    expect(res.status, res.body).toBe(200);
    const body = JSON.parse(res.body);
    expect(body.token_type).toBe('bearer');
    expect(body.user).toMatchObject({ username: 'carol', email: 'carol@example.test', roles: ['user'], auth_provider: 'oidc' });
    const who = await me(body.access_token);
    expect(who.status).toBe(200);
    expect(who.body.id).toBe(body.user.id);
    expect(who.body.permissions).not.toContain('admin:*');
  });

  it('signs the same (issuer, subject) into the same account next time', async () => {
    op.accounts.set('sso-dave', { email: 'dave@example.test', email_verified: true, preferred_username: 'dave' });
    const first = await tokenOf('sso-dave');
    const second = await tokenOf('sso-dave');
    expect(second.user.id).toBe(first.user.id);
  });

  it('sends a fresh state, nonce and S256 challenge, and sets a short-lived HttpOnly SameSite=Lax cookie', async () => {
    const starts = await Promise.all([1, 2, 3].map(() => new Browser().request(`${stacks.url}/api/auth/oidc/login`)));
    const params = starts.map((s) => new URL(s.location as string).searchParams);
    for (const p of params) {
      expect(p.get('code_challenge_method')).toBe('S256');
      expect(p.get('response_type')).toBe('code');
      expect(p.get('redirect_uri')).toBe(stacks.callbackUrl);
      for (const key of ['state', 'nonce', 'code_challenge']) expect(p.get(key)).toMatch(/^[A-Za-z0-9_-]{43,}$/);
    }
    const values = params.flatMap((p) => [p.get('state'), p.get('nonce'), p.get('code_challenge')]);
    expect(new Set(values).size).toBe(values.length);
    const cookie = starts[0]?.setCookies.find((c) => c.startsWith('stacks_oidc=')) ?? '';
    expect(cookie).toMatch(/; Max-Age=600;/);
    expect(cookie).toMatch(/; Path=\/api\/auth\/oidc/);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).not.toMatch(/; Secure/);
  });

  it('maps roles from the groups claim, and follows the provider on every sign-in', async () => {
    op.accounts.set('sso-frank', { email: 'frank@example.test', email_verified: true, groups: ['library-admins', 'unrelated'] });
    const first = await tokenOf('sso-frank');
    expect(first.user.roles).toEqual(['admin']);
    expect((await request(t.app).get('/api/users').set(bearer(first.access_token))).status).toBe(200);
    op.accounts.set('sso-frank', { email: 'frank@example.test', email_verified: true, groups: ['readers'] });
    const second = await tokenOf('sso-frank');
    expect(second.user.id).toBe(first.user.id);
    expect(second.user.roles).toEqual(['reader']);
    expect((await me(first.access_token)).body.roles).toEqual(['reader']);
  });

  it('refuses a disabled account with 403', async () => {
    op.accounts.set('sso-gina', { email: 'gina@example.test', email_verified: true });
    const gina = await tokenOf('sso-gina');
    op.accounts.set('sso-boss', { groups: ['library-admins'] });
    const boss = await tokenOf('sso-boss');
    await request(t.app).patch(`/api/users/${gina.user.id}`).set(bearer(boss.access_token)).send({ disabled: true }).expect(200);
    const again = await signIn('sso-gina');
    expect(again.status).toBe(403);
    expect(JSON.parse(again.body).code).toBe('account_disabled');
  });
});

describe('the callback is bound to the browser and used once', () => {
  it('refuses a replayed callback URL with 400, even with the cookie', async () => {
    op.accounts.set('sso-hank', { email: 'hank@example.test', email_verified: true });
    const callback = await signInUpToCallback(stacks, browser, 'sso-hank');
    const cookie = browser.cookieHeader(new URL(callback));
    expect((await browser.request(callback)).status).toBe(200);
    const replay = await fetch(callback, { headers: { cookie }, redirect: 'manual' });
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { code: string }).code).toBe('oidc_callback_invalid');
  });

  it('refuses a callback without the cookie, with a forged cookie, or from another browser', async () => {
    const callback = await signInUpToCallback(stacks, browser, 'sso-ivy');
    const genuine = browser.cookieHeader(new URL(callback));
    const [name, value = ''] = genuine.split('=');
    const [h, p] = value.split('.');
    const forgedPayload = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p ?? '', 'base64url').toString()), rt: '/x' })).toString('base64url');
    const other = new Browser();
    await other.request(`${stacks.url}/api/auth/oidc/login`);
    const cases = {
      none: undefined,
      forged: `${name}=${h}.${forgedPayload}.${value.split('.')[2]}`,
      unsigned: `${name}=${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${p}.`,
      otherBrowser: other.cookieHeader(new URL(callback)),
    };
    for (const [label, cookie] of Object.entries(cases)) {
      const res = await fetch(callback, { headers: cookie ? { cookie } : {}, redirect: 'manual' });
      expect(res.status, label).toBe(400);
      const text = await res.text();
      expect(JSON.parse(text).code, label).toBe('oidc_callback_invalid');
      expect(text, label).not.toMatch(JWT_SHAPE);
    }
    expect((await browser.request(callback)).status).toBe(200);
  });

  it('refuses a callback with no state or a state other than the cookie’s', async () => {
    const callback = new URL(await signInUpToCallback(stacks, browser, 'sso-jack'));
    const cookie = browser.cookieHeader(callback);
    const noState = new URL(callback);
    noState.searchParams.delete('state');
    const otherState = new URL(callback);
    otherState.searchParams.set('state', 'A'.repeat(43));
    for (const url of [noState, otherState]) {
      const res = await fetch(url, { headers: { cookie }, redirect: 'manual' });
      expect(res.status, url.search).toBe(400);
      expect(((await res.json()) as { code: string }).code).toBe('oidc_callback_invalid');
    }
  });

  it('clears the sign-in cookie on the callback', async () => {
    const res = await browser.request(await signInUpToCallback(stacks, browser, 'sso-kim'));
    expect(res.setCookies.some((c) => c.startsWith('stacks_oidc=;') && /Expires=Thu, 01 Jan 1970/.test(c))).toBe(true);
    expect(browser.cookiesFor(stacks.url)).toEqual([]);
  });
});

describe('return_to and the one-time code', () => {
  it('redirects to a relative return_to with a one-time code, never the token, and trades the code once', async () => {
    op.accounts.set('sso-lena', { email: 'lena@example.test', email_verified: true, preferred_username: 'lena' });
    const res = await browser.request(await signInUpToCallback(stacks, browser, 'sso-lena', '/library?view=grid#top'));
    expect(res.status).toBe(302);
    const location = new URL(res.location as string);
    expect(location.origin).toBe(stacks.url);
    expect(location.pathname).toBe('/library');
    expect(location.searchParams.get('view')).toBe('grid');
    expect(location.hash).toBe('#top');
    expect(res.location).not.toMatch(JWT_SHAPE);
    const code = location.searchParams.get('code') as string;
    expect(code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const traded = await request(t.app).post('/api/auth/oidc/token').send({ code });
    expect(traded.status).toBe(200);
    expect(traded.body.user.username).toBe('lena');
    expect((await me(traded.body.access_token)).status).toBe(200);
    const again = await request(t.app).post('/api/auth/oidc/token').send({ code });
    expect(again.status).toBe(400);
    expect(again.body.code).toBe('invalid_code');
  });

  it('refuses an unknown code and validates the body', async () => {
    expect((await request(t.app).post('/api/auth/oidc/token').send({ code: 'x'.repeat(43) })).body.code).toBe('invalid_code');
    expect((await request(t.app).post('/api/auth/oidc/token').send({ code: 'x', extra: 1 })).status).toBe(422);
  });

  it('accepts an absolute return_to on PUBLIC_URL’s origin', async () => {
    const res = await browser.request(await signInUpToCallback(stacks, browser, 'sso-lena', `${stacks.url}/app/done`));
    expect(res.status).toBe(302);
    expect(res.location?.startsWith(`${stacks.url}/app/done?code=`)).toBe(true);
  });

  const unsafe = [
    'https://evil.example/',
    '//evil.example',
    '/\\evil.example',
    '/%5Cevil.example',
    '/%5cevil.example',
    'https:evil.example',
    'javascript:alert(1)',
    '/%09/evil.example',
    '/\t/evil.example',
    'http://app@evil.example',
    `${'http://127.0.0.1'}@evil.example/`,
    '/%2F/evil.example',
    'evil.example',
  ];
  it.each(unsafe)('treats return_to %j as absent: a 200 token response, no redirect', async (returnTo) => {
    const res = await browser.request(await signInUpToCallback(stacks, browser, 'sso-lena', returnTo));
    expect(res.status).toBe(200);
    expect(res.location).toBeNull();
    expect(JSON.parse(res.body).user.username).toBe('lena');
  });
});

describe('configuration and documentation', () => {
  it('reports single sign-on as on in /api/auth/config', async () => {
    const res = await request(t.app).get('/api/auth/config');
    expect(res.body.oidc_enabled).toBe(true);
  });

  it('documents the OIDC paths in /openapi.json', async () => {
    const doc = (await request(t.app).get('/openapi.json')).body;
    expect(Object.keys(doc.paths['/api/auth/oidc/login'])).toEqual(['get']);
    expect(Object.keys(doc.paths['/api/auth/oidc/callback'])).toEqual(['get']);
    expect(Object.keys(doc.paths['/api/auth/oidc/token'])).toEqual(['post']);
    expect(Object.keys(doc.paths['/api/auth/oidc/link'])).toEqual(['post', 'delete']);
  });
});
