import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { koreaderHeaders } from '../support/koreader.js';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';

/**
 * One spelling per path (API.md, "Authority, timing and input rules"): paths match case-sensitively on
 * every router, so a variant spelling is a 404 `route_not_found`, never a second door past the
 * registration budget, the secret-check lane or a log rule.
 */
let t: TestApp;
let alice: Session;
let key: string;
beforeAll(async () => {
  t = await startTestApp({ REGISTER_LIMIT_PER_HOUR: '3', RATE_LIMIT_PER_MINUTE: '0' });
  alice = await registerUser(t.app, 'alice');
  key = (await request(t.app).post('/api/auth/keys').set(bearer(alice.token)).send({ name: 'kobo' })).body.key;
});
afterAll(() => t.close());

const swapCase = (s: string) => [...s].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');
const concrete = (template: string) => template.replace(/\{\w+\}/g, 'some-id');
/** The path with one of its static segments in another case: the first letter upper-cased, all of it, or every letter swapped. */
const variants = (template: string): string[] => {
  const segments = template.split('/');
  return segments.flatMap((segment, i) => {
    if (!/[a-z]/.test(segment) || segment.startsWith('{')) return [];
    const spell = (s: string) => concrete([...segments.slice(0, i), s, ...segments.slice(i + 1)].join('/'));
    return [spell(segment[0]!.toUpperCase() + segment.slice(1)), spell(segment.toUpperCase()), spell(swapCase(segment))];
  });
};

const registration = (path: string, n: number) =>
  request(t.app).post(path).send({ username: `spell${n}x`, email: `spell${n}x@example.test`, password: 'correct horse battery' });

describe('one spelling per path', () => {
  it('answers 404 route_not_found to every other case of every documented path, whatever the method', async () => {
    const doc = (await request(t.app).get('/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    let tried = 0;
    for (const [template, operations] of Object.entries(doc.paths)) {
      for (const method of Object.keys(operations)) {
        for (const path of variants(template)) {
          const agent = request(t.app) as unknown as Record<string, (p: string) => request.Test>;
          const res = await (agent[method] as (p: string) => request.Test)(path).set(bearer(alice.token));
          expect([res.status, res.body.code], `${method} ${path}`).toEqual([404, 'route_not_found']);
          tried++;
        }
      }
    }
    expect(tried).toBeGreaterThan(100);
  });

  it('does the same on the OPDS, KOReader and docs routers', async () => {
    const spellings = ['/OPDS', '/Opds/books', '/opds/BOOKS', '/opds/Recent', '/opds/V2', '/opds/v2/Books', '/KOSYNC/users/auth', '/kosync/Users/auth', '/kosync/users/AUTH',
      '/Docs/', '/DOCS/', '/OPENAPI.JSON', '/Openapi.json', '/HEALTHZ', '/ReadyZ'];
    const basic = `Basic ${Buffer.from(`alice:${key}`).toString('base64')}`;
    for (const path of spellings) {
      const res = await request(t.app).get(path).set('Authorization', basic).set(koreaderHeaders('alice', key));
      expect([res.status, res.body.code], path).toEqual([404, 'route_not_found']);
    }
    expect((await request(t.app).get('/opds').set('Authorization', basic)).status).toBe(200);
    expect((await request(t.app).get('/kosync/users/auth').set(koreaderHeaders('alice', key))).status).toBe(200);
  });

  it('gives no other door to registration: odd spellings are 404 and create nothing; the one trailing slash Express allows counts against the same budget', async () => {
    const odd = ['/API/auth/register', '/api/AUTH/register', '/Api/Auth/Register', '//api/auth/register', '/api//auth/register', '/api/auth//register',
      '/api/auth%2Fregister', '/api%2Fauth%2Fregister', '/%61pi/auth/register', '/api/auth/regist%65r', '/api/auth/register;x', '/api/auth/./register',
      '/api/auth/../auth/register', '/api/auth/register%20', '/api/auth/register%00', '/api/auth/register//'];
    for (const [i, path] of odd.entries()) {
      const res = await registration(path, i);
      expect([res.status, res.body.code], path).toEqual([404, 'route_not_found']);
    }
    // alice used one of the three registrations of this address; two more, through the two spellings that route there.
    expect((await registration('/api/auth/register', 100)).status).toBe(201);
    expect((await registration('/api/auth/register/', 101)).status).toBe(201);
    for (const path of ['/api/auth/register', '/api/auth/register/']) {
      const res = await registration(path, 102);
      expect([res.status, res.body.code], path).toEqual([429, 'rate_limited']);
    }
    const users = (await request(t.app).get('/api/users?page_size=100').set(bearer(alice.token))).body.items as { username: string }[];
    expect(users.map((u) => u.username).sort()).toEqual(['alice', 'spell100x', 'spell101x']);
  });
});
