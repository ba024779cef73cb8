import request from 'supertest';
import jwt from 'jsonwebtoken';
import type { JWTPayload } from 'jose';
import { HOSTILE_CLIENT_ID, HostileProvider, type IdTokenRecipe } from '../../integration/oidc/support/hostile-provider.js';
import { Browser, openStacksServer, type StacksServer } from '../../integration/oidc/support/stacks-server.js';
import type { UserRepository } from '../../../src/application/ports.js';
import { PORTS } from '../../../src/bootstrap/tokens.js';
import { bearer, registerUser, type TestApp } from '../../support/test-app.js';
import { attack, isProblem, verdict, type Attack, type Seen } from '../support/outcome.js';

interface Sso { stacks: StacksServer; op: HostileProvider; t: TestApp }
let env: Promise<Sso> | null = null;

/** One Stacks with single sign-on against a misbehaving provider, shared by the OIDC attacks. */
function sso(): Promise<Sso> {
  env ??= (async () => {
    const stacks = await openStacksServer();
    const op = await new HostileProvider().start();
    const t = await stacks.start({ OIDC_ISSUER: op.issuer, OIDC_CLIENT_ID: HOSTILE_CLIENT_ID, OIDC_CLIENT_SECRET: 'hostile-secret', OIDC_ALLOW_HTTP: 'true' });
    await registerUser(t.app, 'ssoadmin');
    await registerUser(t.app, 'localalice');
    return { stacks, op, t };
  })();
  return env;
}

export async function closeOidc(): Promise<void> {
  if (!env) return;
  const { stacks, op } = await env;
  await stacks.close();
  await op.close();
}

const usersOf = (t: TestApp) => t.container.di.resolve<UserRepository>(PORTS.UserRepository);

const asSeen = (r: { status: number; body: string; location: string | null }): Seen =>
  ({ status: r.status, text: r.body, headers: { 'content-type': r.body.startsWith('{') ? 'application/json' : 'text/plain' } });

/** A whole sign-in in a fresh browser with the given ID token recipe; returns the callback's answer. */
async function signIn(recipe: IdTokenRecipe, returnTo?: string) {
  const { stacks, op } = await sso();
  op.recipe = recipe;
  const b = new Browser();
  const start = await b.request(`${stacks.url}/api/auth/oidc/login${returnTo === undefined ? '' : `?return_to=${encodeURIComponent(returnTo)}`}`);
  const back = await b.request(start.location!);
  const res = await b.request(back.location!);
  op.recipe = { claims: (d) => d };
  return { start, back, res, browser: b };
}

const claims = (change: (d: JWTPayload) => JWTPayload, signing?: IdTokenRecipe['signing']): IdTokenRecipe => ({ claims: change, ...(signing ? { signing } : {}) });
const subject = (() => { let i = 0; return () => `sub-${(i += 1)}-${Date.now()}`; })();
/** A person the service has never seen: a fresh subject with an e-mail of its own (a known e-mail answers 409 account_exists). */
const newcomer = (d: JWTPayload): JWTPayload => {
  const sub = subject();
  return { ...d, sub, email: `${sub}@example.test` };
};
const JWT_SHAPE = /[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/;

const BAD_ID_TOKENS: Record<string, IdTokenRecipe> = {
  'alg-none': claims((d) => d, 'none'),
  'bad-signature': claims((d) => d, 'other'),
  'wrong-iss': claims((d) => ({ ...d, iss: 'https://evil.example' })),
  'missing-iss': claims((d) => ({ ...d, iss: undefined })),
  'wrong-aud': claims((d) => ({ ...d, aud: 'someone-else' })),
  'extra-untrusted-aud': claims((d) => ({ ...d, aud: [HOSTILE_CLIENT_ID, 'untrusted'] })),
  expired: claims((d) => ({ ...d, iat: (d.iat as number) - 7200, exp: (d.iat as number) - 3600 })),
  'missing-exp': claims((d) => ({ ...d, exp: undefined })),
  'wrong-nonce': claims((d) => ({ ...d, nonce: 'not-the-nonce' })),
  'missing-nonce': claims((d) => ({ ...d, nonce: undefined })),
  'iat-week-old': claims((d) => ({ ...d, iat: (d.iat as number) - 7 * 86400 })),
};

export const oidcAttacks: Attack[] = [
  attack('OIDC-01', 'fresh-pkce-state-nonce', '20 starts: S256, and state, nonce and challenge all distinct with 22+ characters', async () => {
    const { stacks } = await sso();
    const values = new Set<string>();
    let ok = true;
    for (let i = 0; i < 20; i++) {
      const r = await new Browser().request(`${stacks.url}/api/auth/oidc/login`);
      const q = new URL(r.location!).searchParams;
      ok &&= r.status === 302 && q.get('code_challenge_method') === 'S256';
      for (const k of ['state', 'nonce', 'code_challenge']) {
        const v = q.get(k) ?? '';
        ok &&= /^[A-Za-z0-9_-]{22,}$/.test(v) && !values.has(v);
        values.add(v);
      }
    }
    return verdict({ status: 302, headers: {} }, ok && values.size === 60);
  }, 30_000),
  attack('OIDC-02', 'cookie-attributes', 'the binding cookie is HttpOnly, SameSite=Lax and short-lived', async () => {
    const { stacks } = await sso();
    const r = await new Browser().request(`${stacks.url}/api/auth/oidc/login`);
    const c = r.setCookies.join(';').toLowerCase();
    return verdict(asSeen(r), c.includes('httponly') && c.includes('samesite=lax') && /max-age=\d{1,4}(;|$)/.test(c));
  }),
  attack('OIDC-02', 'no-cookie', 'a callback without the binding cookie: 400, no token', async () => {
    const { stacks } = await sso();
    const a = new Browser();
    const start = await a.request(`${stacks.url}/api/auth/oidc/login`);
    const back = await a.request(start.location!);
    const res = await new Browser().request(back.location!);
    return verdict(asSeen(res), res.status === 400 && !res.body.includes('access_token'));
  }),
  attack('OIDC-02', 'wrong-state', 'a callback whose state is not the cookie\'s: 400', async () => {
    const { stacks } = await sso();
    const b = new Browser();
    const start = await b.request(`${stacks.url}/api/auth/oidc/login`);
    const back = new URL((await b.request(start.location!)).location!);
    back.searchParams.set('state', 'A'.repeat(43));
    const res = await b.request(back.href);
    return verdict(asSeen(res), res.status === 400 && !res.body.includes('access_token'));
  }),
  attack('OIDC-02', 'replay', 'replaying a successful callback URL: 400', async () => {
    const { start, back, browser } = await signIn(claims(newcomer));
    void start;
    const again = await browser.request(back.location!);
    return verdict(asSeen(again), again.status === 400);
  }),
  ...Object.entries(BAD_ID_TOKENS).map(([k, recipe]) => attack('OIDC-03', `id-token.${k}`, `ID token ${k}: no sign-in`, async () => {
    const { res } = await signIn(claims((d) => recipe.claims(newcomer(d)), recipe.signing));
    return verdict(asSeen(res), res.status >= 400 && res.status < 500 && !res.body.includes('access_token'));
  })),
  attack('OIDC-04', 'unverified-email', 'an unverified e-mail equal to a local account\'s never signs into it', async () => {
    const { t } = await sso();
    const { res } = await signIn(claims((d) => ({ ...d, sub: subject(), email: 'localalice@example.test', email_verified: false })));
    const body = res.status === 200 ? JSON.parse(res.body) : null;
    const admin = await request(t.app).post('/api/auth/login').send({ username: 'localalice', password: 'correct horse battery' });
    return verdict(asSeen(res), admin.status === 200 && (body === null || body.user.id !== admin.body.user.id));
  }),
  attack('OIDC-04', 'pre-account-takeover', 'a password account registered first on the victim\'s e-mail never receives the victim\'s verified SSO identity', async () => {
    const { t } = await sso();
    const email = `victim.${subject()}@corp.example`;
    const squat = await request(t.app).post('/api/auth/register').send({ username: `squat-${subject()}`, email, password: 'correct horse battery' });
    const { res } = await signIn(claims((d) => ({ ...d, sub: subject(), email, email_verified: true })));
    const squatter = await usersOf(t).findById(squat.body.user?.id ?? '');
    const safe = squat.status === 201 && res.status === 409 && !res.body.includes('access_token') && squatter?.oidc === null;
    return verdict(asSeen(res), safe, `squatter linked: ${squatter?.oidc !== null}`);
  }),
  attack('OIDC-04', 'link-other-browser', 'a link started with one account\'s token and finished in another browser links nothing', async () => {
    const { t, stacks } = await sso();
    const starter = await registerUser(t.app, `linker-${subject()}`);
    const started = await new Browser().request(`${stacks.url}/api/auth/oidc/link`, { method: 'POST', json: { current_password: 'correct horse battery' }, headers: bearer(starter.token) });
    const victim = new Browser();
    const back = await victim.request(JSON.parse(started.body).authorization_url);
    const res = await victim.request(back.location!);
    const linked = (await usersOf(t).findById(starter.user.id))?.oidc;
    return verdict(asSeen(res), started.status === 200 && res.status === 400 && !res.body.includes('access_token') && linked === null);
  }),
  ...['https://evil.example', '//evil.example', '/\\evil.example', '/%5Cevil.example', 'https:evil.example', 'javascript:alert(1)',
    '/%09/evil.example', 'http://app@evil.example'].map((rt, i) => attack('OIDC-05', `return-to.${i}`, `return_to ${rt}: no redirect off-site`, async () => {
    const { res } = await signIn(claims(newcomer), rt);
    const { stacks } = await sso();
    const safe = res.status === 200 || (res.status === 302 && new URL(res.location!).origin === stacks.url);
    return verdict(asSeen(res), safe && !(res.location ?? '').includes('evil'));
  })),
  attack('OIDC-06', 'one-time-code', 'the redirect carries no JWT and its code trades once', async () => {
    const { t } = await sso();
    const { res } = await signIn(claims(newcomer), '/library');
    const code = new URL(res.location!).searchParams.get('code')!;
    const first = await request(t.app).post('/api/auth/oidc/token').send({ code });
    const second = await request(t.app).post('/api/auth/oidc/token').send({ code });
    return verdict([first, second], res.status === 302 && !JWT_SHAPE.test(res.location!) && first.status === 200 && isProblem(second, 400));
  }),
  attack('OIDC-07', 'object-email', 'an e-mail claim that is an object: refused, no 500', async () => {
    const { res } = await signIn(claims((d) => ({ ...d, sub: subject(), email: { $ne: null } })));
    return verdict(asSeen(res), (res.status >= 400 && res.status < 500) || (res.status === 200 && !res.body.includes('$ne')));
  }),
  attack('OIDC-07', 'huge-name', 'a 5 MB name claim: refused or stored capped, no 500', async () => {
    const { res } = await signIn(claims((d) => ({ ...newcomer(d), name: 'N'.repeat(5 * 1024 * 1024), preferred_username: 'p'.repeat(10_000) })));
    return verdict(asSeen(res), (res.status >= 400 && res.status < 500) || (res.status === 200 && res.body.length < 10_000));
  }, 30_000),
  attack('OIDC-08', 'default-permissions', 'an SSO-created user gets the default permissions only', async () => {
    const { t } = await sso();
    const { res } = await signIn(claims((d) => ({ ...d, sub: subject(), email: `sso${Date.now()}@example.test`, groups: ['admins', 'library-admins'] })));
    const token = JSON.parse(res.body).access_token as string;
    const me = await request(t.app).get('/api/auth/me').set(bearer(token));
    const users = await request(t.app).get('/api/users').set(bearer(token));
    return verdict([me, users], me.body.roles?.join() === 'user' && isProblem(users, 403) && (jwt.decode(token) as { aud?: string }).aud === 'stacks');
  }),
];
