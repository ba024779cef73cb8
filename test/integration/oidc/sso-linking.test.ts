import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OneTimeCodeRepository, UserRepository } from '../../../src/application/ports.js';
import { Authenticate } from '../../../src/application/use-cases/authenticate.js';
import { PORTS } from '../../../src/bootstrap/tokens.js';
import { aUser } from '../../support/builders.js';
import { holdRequest } from '../../security/support/held-request.js';
import { bearer, registerUser, type Session, type TestApp } from '../../support/test-app.js';
import { CLIENT_ID, CLIENT_SECRET, signInAtProvider, startRealProvider, type RealProvider } from './support/real-provider.js';
import { Browser, openStacksServer, signInUpToCallback, type StacksServer } from './support/stacks-server.js';

let stacks: StacksServer;
let op: RealProvider;
let t: TestApp;
let users: UserRepository;

beforeAll(async () => {
  stacks = await openStacksServer();
  op = await startRealProvider(stacks.callbackUrl);
  t = await stacks.start({ OIDC_ISSUER: op.issuer, OIDC_CLIENT_ID: CLIENT_ID, OIDC_CLIENT_SECRET: CLIENT_SECRET, OIDC_ALLOW_HTTP: 'true' });
  users = t.container.di.resolve<UserRepository>(PORTS.UserRepository);
  await registerUser(t.app, 'founder');
});
afterAll(async () => {
  await stacks.close();
  await op.close();
});

const PASSWORD = 'correct horse battery';
/** A whole SSO sign-in in a fresh browser: the callback's answer. */
async function ssoSignIn(accountId: string) {
  const browser = new Browser();
  const res = await browser.request(await signInUpToCallback(stacks, browser, accountId));
  return { status: res.status, body: JSON.parse(res.body) };
}
const passwordLogin = (username: string) => request(t.app).post('/api/auth/login').send({ username, password: PASSWORD });

/** The link flow as a same-origin page would run it: POST with the bearer token, then the browser goes to the provider. */
async function linkInBrowser(session: Session, accountId: string, body: Record<string, string> = { current_password: PASSWORD }) {
  const browser = new Browser();
  const started = await browser.request(`${stacks.url}/api/auth/oidc/link`, { method: 'POST', json: body, headers: bearer(session.token) });
  expect(started.status, started.body).toBe(200);
  const { authorization_url: url } = JSON.parse(started.body) as { authorization_url: string };
  return browser.request(await signInAtProvider(browser, url, accountId, stacks.callbackUrl));
}

describe('a first SSO sign-in never takes over an account (pre-account takeover, issue 13)', () => {
  it('refuses the victim\'s SSO into a squatter\'s password account: 409 account_exists, squatter unchanged, no account created', async () => {
    const squatter = await request(t.app).post('/api/auth/register').send({ username: 'squatter', email: 'victim@corp.example', password: PASSWORD });
    const before = await users.findById(squatter.body.user.id);
    const count = await users.count();
    op.accounts.set('sso-victim', { email: 'Victim@Corp.example', email_verified: true, preferred_username: 'victim' });
    const res = await ssoSignIn('sso-victim');
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'account_exists' });
    expect(res.body.detail).toMatch(/password.*link/);
    expect(JSON.stringify(res.body)).not.toContain('access_token');
    expect(await users.findById(squatter.body.user.id)).toEqual(before);
    expect(await users.count()).toBe(count);
  });

  it('refuses an unverified e-mail that belongs to an account: 409 account_exists, nothing changed', async () => {
    const alice = await registerUser(t.app, 'alice');
    const before = await users.findById(alice.user.id);
    const count = await users.count();
    op.accounts.set('sso-mallory', { email: 'alice@example.test', email_verified: false, preferred_username: 'alice' });
    const res = await ssoSignIn('sso-mallory');
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('account_exists');
    expect(await users.findById(alice.user.id)).toEqual(before);
    expect(await users.count()).toBe(count);
  });

  it('links an account made for SSO (no password, by an admin) when the provider verified its e-mail', async () => {
    const made = aUser({ id: 'made-for-sso', username: 'quinn', email: 'quinn@example.test', passwordHash: null, roles: ['reader'] });
    await users.create(made);
    op.accounts.set('sso-quinn', { email: 'quinn@example.test', email_verified: true, preferred_username: 'quinn-sso' });
    const res = await ssoSignIn('sso-quinn');
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ id: made.id, username: 'quinn', roles: ['reader'] });
    expect((await users.findById(made.id))?.oidc).toMatchObject({ issuer: op.issuer, subject: 'sso-quinn' });
    expect((await ssoSignIn('sso-quinn')).body.user.id).toBe(made.id);
  });
});

describe('the link flow from a signed-in session', () => {
  it('links the identity to the signed-in account, which keeps its password; SSO sign-ins then land there', async () => {
    const nina = await registerUser(t.app, 'nina');
    op.accounts.set('sso-nina', { email: 'nina.work@corp.example', email_verified: true, preferred_username: 'nina-sso' });
    const res = await linkInBrowser(nina, 'sso-nina');
    expect(res.status, res.body).toBe(200);
    expect(JSON.parse(res.body).user).toMatchObject({ id: nina.user.id, username: 'nina', auth_provider: 'local' });
    expect((await users.findById(nina.user.id))?.oidc).toMatchObject({ issuer: op.issuer, subject: 'sso-nina' });
    expect((await ssoSignIn('sso-nina')).body.user.id).toBe(nina.user.id);
    expect((await passwordLogin('nina')).status).toBe(200);
  });

  it('with return_to, finishes like a sign-in: a redirect with a one-time code for that account', async () => {
    const olga = await registerUser(t.app, 'olga');
    op.accounts.set('sso-olga', { email: 'olga@corp.example', email_verified: true });
    const res = await linkInBrowser(olga, 'sso-olga', { current_password: PASSWORD, return_to: '/settings' });
    expect(res.status).toBe(302);
    const location = new URL(res.location as string);
    expect(location.pathname).toBe('/settings');
    const traded = await request(t.app).post('/api/auth/oidc/token').send({ code: location.searchParams.get('code') });
    expect(traded.body.user.id).toBe(olga.user.id);
  });

  it('refuses to link an identity that already belongs to another account, changing neither', async () => {
    op.accounts.set('sso-rita', { email: 'rita@corp.example', email_verified: true, preferred_username: 'rita' });
    const holder = (await ssoSignIn('sso-rita')).body.user as { id: string };
    const pete = await registerUser(t.app, 'pete');
    const before = [await users.findById(holder.id), await users.findById(pete.user.id)];
    const res = await linkInBrowser(pete, 'sso-rita');
    expect(res.status).toBe(409);
    expect(JSON.parse(res.body).code).toBe('oidc_identity_already_linked');
    expect([await users.findById(holder.id), await users.findById(pete.user.id)]).toEqual(before);
  });

  it('needs a token, refuses an account already linked, and binds the link to the browser that started it', async () => {
    expect((await request(t.app).post('/api/auth/oidc/link').send({})).status).toBe(401);
    const linked = (await ssoSignIn('sso-sam')).body as { access_token: string };
    const again = await request(t.app).post('/api/auth/oidc/link').set(bearer(linked.access_token)).send({});
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('oidc_account_already_linked');
    const uma = await registerUser(t.app, 'uma');
    const starter = new Browser();
    const started = await starter.request(`${stacks.url}/api/auth/oidc/link`, { method: 'POST', json: { current_password: PASSWORD }, headers: bearer(uma.token) });
    const victim = new Browser();
    const callback = await signInAtProvider(victim, JSON.parse(started.body).authorization_url, 'sso-tom', stacks.callbackUrl);
    const res = await victim.request(callback);
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).code).toBe('oidc_callback_invalid');
    expect((await users.findById(uma.user.id))?.oidc).toBeNull();
  });
});

describe('linking needs the password, shows, revokes and can be undone (issue 22)', () => {
  it('a stolen token alone cannot link: 403 invalid_current_password, no state, and guesses are throttled like the password change', async () => {
    const vic = await registerUser(t.app, 'vic');
    for (const body of [{}, { current_password: 'attacker guess' }]) {
      const res = await request(t.app).post('/api/auth/oidc/link').set(bearer(vic.token)).send(body);
      expect([res.status, res.body.code]).toEqual([403, 'invalid_current_password']);
    }
    for (let i = 0; i < 8; i++) await request(t.app).post('/api/auth/oidc/link').set(bearer(vic.token)).send({ current_password: `guess ${i}` });
    const right = await request(t.app).post('/api/auth/oidc/link').set(bearer(vic.token)).send({ current_password: PASSWORD });
    expect([right.status, right.body.code]).toEqual([429, 'rate_limited']);
    expect((await users.findById(vic.user.id))?.oidc).toBeNull();
  });

  it('a key can never link (403), whatever it may do', async () => {
    const kim = await registerUser(t.app, 'kim');
    const key = (await request(t.app).post('/api/auth/keys').set(bearer(kim.token)).send({ name: 'all' })).body.key as string;
    const res = await request(t.app).post('/api/auth/oidc/link').set(bearer(key)).send({ current_password: PASSWORD });
    expect([res.status, res.body.code]).toEqual([403, 'permission_denied']);
  });

  it('shows the link as sso on /api/auth/me and in the admin view, revokes the other sessions, and unlinks with the password (204)', async () => {
    const wes = await registerUser(t.app, 'wes');
    expect((await request(t.app).get('/api/auth/me').set(bearer(wes.token))).body.sso).toBeNull();
    op.accounts.set('sso-wes', { email: 'wes@corp.example', email_verified: true });
    const linked = JSON.parse((await linkInBrowser(wes, 'sso-wes')).body) as { access_token: string };
    expect((await request(t.app).get('/api/auth/me').set(bearer(wes.token))).status).toBe(401);
    const me = await request(t.app).get('/api/auth/me').set(bearer(linked.access_token));
    expect(me.body.sso).toEqual({ issuer: op.issuer, linked_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    const founder = (await passwordLogin('founder')).body.access_token as string;
    expect((await request(t.app).get(`/api/users/${wes.user.id}`).set(bearer(founder))).body.sso).toEqual(me.body.sso);

    const wrong = await request(t.app).delete('/api/auth/oidc/link').set(bearer(linked.access_token)).send({ current_password: 'not it' });
    expect([wrong.status, wrong.body.code]).toEqual([403, 'invalid_current_password']);
    expect((await request(t.app).delete('/api/auth/oidc/link').set(bearer(linked.access_token)).send({ current_password: PASSWORD })).status).toBe(204);
    expect((await request(t.app).get('/api/auth/me').set(bearer(linked.access_token))).status).toBe(401);
    const fresh = (await passwordLogin('wes')).body.access_token as string;
    expect((await request(t.app).get('/api/auth/me').set(bearer(fresh))).body.sso).toBeNull();
    expect((await ssoSignIn('sso-wes')).body.user.id).not.toBe(wes.user.id);
  });

  it('an account without a password cannot drop its only way in (409 password_not_set); an admin can unlink any account (204)', async () => {
    op.accounts.set('sso-zed', { email: 'zed@corp.example', email_verified: true, preferred_username: 'zed' });
    const zed = (await ssoSignIn('sso-zed')).body as { access_token: string; user: { id: string } };
    const self = await request(t.app).delete('/api/auth/oidc/link').set(bearer(zed.access_token)).send({ current_password: 'anything' });
    expect([self.status, self.body.code]).toEqual([409, 'password_not_set']);
    const founder = (await passwordLogin('founder')).body.access_token as string;
    expect((await request(t.app).delete(`/api/users/${zed.user.id}/sso`).set(bearer(zed.access_token))).status).toBe(403);
    expect((await request(t.app).delete(`/api/users/${zed.user.id}/sso`).set(bearer(founder))).status).toBe(204);
    expect((await users.findById(zed.user.id))?.oidc).toBeNull();
    expect((await request(t.app).get('/api/auth/me').set(bearer(zed.access_token))).status).toBe(401);
  });

  it('a link request held while its session is revoked (password change) starts nothing: 401, no state recorded', async () => {
    const hal = await registerUser(t.app, 'hal');
    const second = (await passwordLogin('hal')).body.access_token as string;
    const authenticate = t.container.di.resolve(Authenticate);
    const original = authenticate.execute.bind(authenticate);
    let letIn!: () => void;
    const admitted = new Promise<void>((resolve) => (letIn = resolve));
    authenticate.execute = async (...args) => {
      const result = await original(...args);
      if (args[0] === hal.token) letIn();
      return result;
    };
    try {
      const body = Buffer.from(JSON.stringify({ current_password: PASSWORD }));
      const held = await holdRequest(stacks.url, 'POST', '/api/auth/oidc/link', { Authorization: `Bearer ${hal.token}`, 'Content-Type': 'application/json' }, body);
      await admitted;
      await request(t.app).put('/api/auth/password').set(bearer(second)).send({ current_password: PASSWORD, new_password: 'changed meanwhile' }).expect(204);
      const codes = t.container.di.resolve<OneTimeCodeRepository>(PORTS.OneTimeCodeRepository);
      await codes.purgeExpired(new Date(8.64e15)); // every state recorded so far, gone
      const answer = await held.finish();
      expect([answer.status, answer.body['code']]).toEqual([401, 'invalid_token']);
      expect(await codes.purgeExpired(new Date(8.64e15))).toBe(0);
    } finally {
      authenticate.execute = original;
    }
  });
});
