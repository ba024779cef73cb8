import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { koreaderHeaders } from '../support/koreader.js';
import { bearer, startTestApp, type TestApp } from '../support/test-app.js';

const lines: string[] = [];
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({}, {}, lines);
});
afterAll(() => t.close());

describe('request and auth logs', () => {
  it('log one JSON line per request, with the client address, and one auth event per check, with no password, token or raw login', async () => {
    const reg = await request(t.app).post('/api/auth/register').send({ username: 'logger', email: 'l@example.test', password: 'secret-password-1' });
    const token: string = reg.body.access_token;
    await request(t.app).post('/api/auth/login').send({ username: 'logger', password: 'wrong-password-2' });
    await request(t.app).post('/api/auth/login').send({ username: 'secret-password-typed-as-login', password: 'wrong-password-3' });
    await request(t.app).post('/api/auth/login').send({ username: 'evil\r\nforged line', password: 'wrong-password-3' });
    await request(t.app).get('/api/auth/me').set(bearer(token));
    await request(t.app).put('/api/auth/password').set(bearer(token)).send({ current_password: 'secret-password-1', new_password: 'secret-password-4' });

    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const requests = records.filter((r) => r.msg === 'request');
    expect(requests.map((r) => [r.method, r.route, r.status])).toEqual([
      ['POST', '/api/auth/register', 201],
      ['POST', '/api/auth/login', 401],
      ['POST', '/api/auth/login', 401],
      ['POST', '/api/auth/login', 422],
      ['GET', '/api/auth/me', 200],
      ['PUT', '/api/auth/password', 204],
    ]);
    for (const r of requests) {
      expect(r.req_id).toEqual(expect.any(String));
      expect(r.duration_ms).toEqual(expect.any(Number));
      expect(r.address).toMatch(/127\.0\.0\.1|::1/);
    }
    const auth = records.filter((r) => r.msg === 'auth').map(({ event, method, user_id, login_tag, code }) => ({ event, method, user_id, login_tag, code }));
    expect(auth).toEqual([
      { event: 'user_registered', user_id: reg.body.user.id },
      { event: 'auth_failed', method: 'password', user_id: reg.body.user.id, code: 'invalid_credentials' },
      { event: 'auth_failed', method: 'password', login_tag: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/), code: 'invalid_credentials' },
      { event: 'auth_succeeded', method: 'current_password', user_id: reg.body.user.id },
      { event: 'password_changed', user_id: reg.body.user.id },
    ]);
    const all = lines.join('\n');
    for (const secret of ['secret-password-1', 'wrong-password-2', 'wrong-password-3', 'secret-password-4', 'secret-password-typed-as-login', 'forged', token, token.split('.')[2]!]) {
      expect(all).not.toContain(secret);
    }
  });

  it('log each KOReader sign-in, OPDS Basic check and bearer key use, with neither the key nor its MD5', async () => {
    const reg = await request(t.app).post('/api/auth/register').send({ username: 'koreader', email: 'k@example.test', password: 'secret-password-5' });
    const key: string = (await request(t.app).post('/api/auth/keys').set(bearer(reg.body.access_token)).send({ name: 'kobo' })).body.key;
    const headers = koreaderHeaders('koreader', key);
    const from = lines.length;
    await request(t.app).get('/kosync/users/auth').set(koreaderHeaders('koreader', 'stk_wrong-key-6'));
    await request(t.app).get('/kosync/users/auth').set(headers);
    await request(t.app).get('/kosync/syncs/progress/0123456789abcdef0123456789abcdef').set(headers);
    await request(t.app).get('/opds').auth('koreader', 'wrong-password-7');
    await request(t.app).get('/opds').auth('koreader', 'secret-password-5');
    await request(t.app).get('/opds').auth('koreader', key);
    await request(t.app).get('/opds').auth('nobody-with-a-key', key);
    await request(t.app).get('/api/auth/me').set(bearer(key));
    await request(t.app).get('/api/auth/me').set(bearer('stk_wrong-key-8'));

    const id = reg.body.user.id;
    const events = lines.slice(from).map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.msg === 'auth')
      .map(({ event, method, user_id, login_tag, code }) => [event, method, user_id ?? (login_tag ? 'tag' : undefined), code]);
    expect(events).toEqual([
      ['auth_failed', 'koreader_key', id, 'invalid_token'],
      ['auth_succeeded', 'koreader_key', id, undefined],
      ['auth_succeeded', 'koreader_key', id, undefined],
      ['auth_failed', 'opds_password', id, 'invalid_credentials'],
      ['auth_succeeded', 'opds_password', id, undefined],
      ['auth_succeeded', 'opds_key', id, undefined],
      ['auth_failed', 'opds_key', 'tag', 'invalid_token'],
      ['auth_succeeded', 'api_key', id, undefined],
      ['auth_failed', 'api_key', undefined, 'invalid_token'],
    ]);
    const all = lines.join('\n');
    for (const secret of [key, headers['x-auth-key'], 'stk_wrong-key-6', koreaderHeaders('koreader', 'stk_wrong-key-6')['x-auth-key'], 'wrong-password-7', 'secret-password-5', 'stk_wrong-key-8']) {
      expect(all).not.toContain(secret);
    }
  });
});
