import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';
import { ConfigError, loadConfig } from '../../../src/bootstrap/config.js';
import { bearer } from '../../support/test-app.js';
import { upload } from '../../support/books.js';
import { attack, isProblem, verdict, type Attack, type Seen } from '../support/outcome.js';
import { claims, forge, nonCanonical, rsaWithEmbeddedKey, stateCookieKey } from '../support/forge.js';
import type { World } from '../support/world.js';

/** One request to each protected route family. */
const FAMILIES = (w: World) => ['/api/auth/me', '/api/books', `/api/books/${w.ids.bobBook}`, '/api/shelves', '/api/users', '/api/roles'];

const now = (w: World) => Math.floor(w.clock.now().getTime() / 1000);

/** Sends the token to every family; safe when every answer is a 401 problem. */
async function refusedEverywhere(w: World, token: string, note = '') {
  const seen: Seen[] = [];
  for (const path of FAMILIES(w)) seen.push(await w.api().get(path).set('Authorization', `Bearer ${token}`));
  return verdict(seen, seen.every((r) => isProblem(r, 401)), note);
}

type Forger = (w: World) => string | Promise<string>;

const forged: Array<[slug: string, name: string, forger: Forger]> = [
  ...['none', 'None', 'NONE', 'nOnE'].map((alg): [string, string, Forger] =>
    [`alg-${alg}`, `alg "${alg}" with an empty signature`, (w) => forge({ alg, typ: 'JWT' }, claims(w.alice.user.id, now(w)))]),
  ['hs512-real-secret', 'HS512 with the real secret (only HS256 allowed)', (w) => forge({ alg: 'HS512', typ: 'JWT' }, claims(w.alice.user.id, now(w)))],
  ['hs384-real-secret', 'HS384 with the real secret', (w) => forge({ alg: 'HS384', typ: 'JWT' }, claims(w.alice.user.id, now(w)))],
  ['rs256-embedded-jwk', 'RS256 signed by the attacker, key in the jwk header', (w) => rsaWithEmbeddedKey(claims(w.admin.user.id, now(w)))],
  ['x5c-header', 'RS256 with an x5c chain header', (w) => rsaWithEmbeddedKey(claims(w.admin.user.id, now(w)), { x5c: ['MIIBIjANBgkq'] })],
  ['kid-path-traversal', 'kid ../../../../dev/null, MAC with an empty key', (w) => forge({ alg: 'HS256', kid: '../../../../dev/null' }, claims(w.alice.user.id, now(w)), '')],
  ['kid-sql', "kid ' OR '1'='1", (w) => forge({ alg: 'HS256', kid: "' OR '1'='1" }, claims(w.alice.user.id, now(w)), 'x')],
  ['kid-operator', 'kid {"$ne":null}', (w) => forge({ alg: 'HS256', kid: { $ne: null } }, claims(w.alice.user.id, now(w)), 'x')],
  ['expired', 'exp two minutes ago (real secret)', (w) => forge({ alg: 'HS256' }, claims(w.alice.user.id, now(w) - 7200, { exp: now(w) - 120 }))],
  ['no-exp', 'no exp at all (real secret)', (w) => forge({ alg: 'HS256' }, claims(w.alice.user.id, now(w), { exp: undefined }))],
  ['nbf-future', 'nbf five minutes ahead (real secret)', (w) => forge({ alg: 'HS256' }, claims(w.alice.user.id, now(w), { nbf: now(w) + 300 }))],
  ['iat-future', 'iat an hour ahead (real secret)', (w) => forge({ alg: 'HS256' }, claims(w.alice.user.id, now(w) + 3600))],
  ['aud-other', 'aud "other" (real secret)', (w) => forge({ alg: 'HS256' }, claims(w.alice.user.id, now(w), { aud: 'other' }))],
  ['aud-missing', 'no aud (real secret)', (w) => forge({ alg: 'HS256' }, claims(w.alice.user.id, now(w), { aud: undefined }))],
  ['iss-wrong', 'iss "evil" (real secret)', (w) => forge({ alg: 'HS256' }, claims(w.alice.user.id, now(w), { iss: 'evil' }))],
  ['iss-missing', 'no iss (real secret)', (w) => forge({ alg: 'HS256' }, claims(w.alice.user.id, now(w), { iss: undefined }))],
  ['jti-missing', 'no jti (real secret)', (w) => forge({ alg: 'HS256' }, claims(w.alice.user.id, now(w), { jti: undefined }))],
  ['tv-stale', 'token version from the future (real secret)', (w) => forge({ alg: 'HS256' }, claims(w.alice.user.id, now(w), { tv: 99 }))],
  ['tv-negative', 'token version -1 (real secret)', (w) => forge({ alg: 'HS256' }, claims(w.alice.user.id, now(w), { tv: -1 }))],
  ['sub-operator', 'sub {"$ne":null} (real secret)', (w) => forge({ alg: 'HS256' }, claims('x', now(w), { sub: { $ne: null } }))],
  ['sub-unknown', 'sub of no user (real secret)', (w) => forge({ alg: 'HS256' }, claims('no-such-user', now(w)))],
  ['sub-traversal', 'sub ../../etc/passwd (real secret)', (w) => forge({ alg: 'HS256' }, claims('../../etc/passwd', now(w)))],
  ['wrong-secret', 'admin sub signed with a guessed secret', (w) => forge({ alg: 'HS256' }, claims(w.admin.user.id, now(w)), 'secret')],
  ['payload-swapped', "alice's signature on a payload naming the admin", (w) => {
    const [h, , s] = w.alice.token.split('.');
    const payload = { ...(jwt.decode(w.alice.token) as Record<string, unknown>), sub: w.admin.user.id };
    return `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`;
  }],
  ['signature-stripped', "alice's token without its signature", (w) => `${w.alice.token.split('.').slice(0, 2).join('.')}.`],
  ['state-cookie-key', 'a token MAC\'d with the OIDC state-cookie key', (w) => forge({ alg: 'HS256' }, claims(w.alice.user.id, now(w)), stateCookieKey())],
  ['state-cookie-audience', 'a token with the state cookie audience (real secret)', (w) => forge({ alg: 'HS256' }, claims(w.alice.user.id, now(w), { aud: 'stacks-oidc-state' }))],
  ['typ-id-token', 'an ID-token-shaped token (aud = client id, nonce) with the real secret', (w) => forge({ alg: 'HS256' }, claims(w.alice.user.id, now(w), { aud: 'stacks-client', nonce: 'n' }))],
  ['four-segments', 'a valid token with a fourth segment', (w) => `${w.alice.token}.AAAA`],
  ['double-token', 'two valid tokens joined', (w) => `${w.alice.token}${w.alice.token}`],
  ['jku-canary', 'jku header pointing at a loopback canary', async (w) => forge({ alg: 'HS256', jku: `${w.url}/canary/jwks.json` }, claims(w.alice.user.id, now(w)), 'x')],
  ['oversized', 'a 5000-character token', (w) => `${w.alice.token}${'A'.repeat(5000)}`],
];

async function revokedBy(w: World, action: (token: string, userId: string) => Promise<unknown>) {
  const victim = await w.fresh('tokvictim');
  await action(victim.token, victim.user.id);
  return victim.token;
}

export const tokenAttacks: Attack[] = [
  ...forged.map(([slug, name, forger]) => {
    const row = /alg|hs|^x5c/.test(slug) ? 'TOK-01' : /jwk|kid|jku|state-cookie-key/.test(slug) ? 'TOK-02'
      : /exp|nbf|iat/.test(slug) ? 'TOK-03' : /aud|iss|typ|state-cookie-aud/.test(slug) ? 'TOK-04' : 'TOK-07';
    return attack(row, slug, `${name}: 401 on every route family`, async (w) => refusedEverywhere(w, await forger(w)));
  }),
  attack('TOK-02', 'jku-never-fetched', 'a jku/x5u header makes the service fetch nothing', async (w) => {
    let hits = 0;
    const canary = createServer((_req, res) => { hits += 1; res.end('{}'); });
    await new Promise<void>((r) => canary.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(canary.address() as AddressInfo).port}`;
    const token = forge({ alg: 'HS256', jku: `${url}/jwks`, x5u: `${url}/cert` }, claims(w.alice.user.id, now(w)), 'x');
    const out = await refusedEverywhere(w, token);
    canary.close();
    return { ...out, succeeded: out.succeeded || hits > 0, note: `canary hits: ${hits}` };
  }),
  attack('TOK-03', 'lifetime-90d', 'a fresh token lives exactly JWT_EXPIRES_IN (90 days)', async (w) => {
    const res = await w.api().post('/api/auth/login').send({ username: 'bob', password: 'correct horse battery' });
    const p = jwt.decode(res.body.access_token) as { exp: number; iat: number };
    return verdict(res, res.status === 200 && Math.abs(p.exp - p.iat - 7_776_000) <= 5 && res.body.expires_in === 7_776_000);
  }),
  attack('TOK-05', 'after-logout', 'a token reused after logout', async (w) => {
    const token = await revokedBy(w, (tk) => w.api().post('/api/auth/logout').set(bearer(tk)).expect(204));
    return refusedEverywhere(w, token);
  }),
  attack('TOK-05', 'after-logout-non-canonical', 'a logged-out token with a non-canonical signature encoding', async (w) => {
    const token = await revokedBy(w, (tk) => w.api().post('/api/auth/logout').set(bearer(tk)).expect(204));
    return refusedEverywhere(w, nonCanonical(token));
  }),
  attack('TOK-05', 'after-disable', 'a token of a user the admin has just disabled', async (w) => {
    const token = await revokedBy(w, (_tk, id) => w.api().patch(`/api/users/${id}`).set(bearer(w.admin.token)).send({ disabled: true }).expect(200));
    return refusedEverywhere(w, token);
  }),
  attack('TOK-05', 'after-delete', 'a token of a deleted user', async (w) => {
    const token = await revokedBy(w, (_tk, id) => w.api().delete(`/api/users/${id}`).set(bearer(w.admin.token)).expect(204));
    return refusedEverywhere(w, token);
  }),
  attack('TOK-05', 'after-password-change', 'a token issued before a password change', async (w) => {
    const token = await revokedBy(w, (tk) => w.api().put('/api/auth/password').set(bearer(tk))
      .send({ current_password: 'correct horse battery', new_password: 'another horse battery' }).expect(204));
    return refusedEverywhere(w, token);
  }),
  attack('TOK-06', 'role-change-immediate', 'a user demoted to reader deletes their own book with an old token', async (w) => {
    const u = await w.fresh('demoted');
    const book = await upload(w.t.app, u, Buffer.from('Demoted book.\n'), 'demoted.txt');
    await w.api().patch(`/api/users/${u.user.id}`).set(bearer(w.admin.token)).send({ roles: ['reader'] }).expect(200);
    const del = await w.api().delete(`/api/books/${book.body.id}`).set(bearer(u.token));
    const still = await w.api().get(`/api/books/${book.body.id}`).set(bearer(w.admin.token));
    return verdict([book, del, still], isProblem(del, 403) && still.status === 200);
  }),
  attack('TOK-07', 'header-100kb', 'a 100 KB Authorization header on a real socket', async (w) => {
    const res = await fetch(`${w.url}/api/auth/me`, { headers: { Authorization: `Bearer ${'A'.repeat(100_000)}` } });
    const seen = { status: res.status, text: await res.text(), headers: Object.fromEntries(res.headers) };
    return verdict(seen, [401, 431].includes(res.status));
  }),
  attack('TOK-07', 'basic-scheme', 'a valid token under the Basic scheme', async (w) => {
    const res = await w.api().get('/api/auth/me').set('Authorization', `Basic ${w.alice.token}`);
    return verdict(res, isProblem(res, 401));
  }),
  attack('TOK-08', 'weak-secret-refused', 'JWT_SECRET=secret stops the configuration', async () => {
    let refused = false;
    try { loadConfig({ JWT_SECRET: 'secret' }); } catch (e) { refused = e instanceof ConfigError && /JWT_SECRET/.test(e.message); }
    return verdict({ status: refused ? 0 : 200, headers: {} }, refused);
  }),
  attack('TOK-09', 'query-string', 'a valid token in ?access_token= with no header', async (w) => {
    const seen: Seen[] = [];
    for (const path of FAMILIES(w)) seen.push(await w.api().get(`${path}${path.includes('?') ? '&' : '?'}access_token=${w.alice.token}`));
    return verdict(seen, seen.every((r) => isProblem(r, [401, 422])));
  }),
  attack('TOK-09', 'cookie', 'a valid token in a cookie with no header', async (w) => {
    const seen: Seen[] = [];
    for (const path of FAMILIES(w)) seen.push(await w.api().get(path).set('Cookie', `token=${w.alice.token}; access_token=${w.alice.token}`));
    return verdict(seen, seen.every((r) => isProblem(r, 401)));
  }),
];

