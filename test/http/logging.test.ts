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
  it('log one JSON line per request and each auth event, with no password or token', async () => {
    const reg = await request(t.app).post('/api/auth/register').send({ username: 'logger', email: 'l@example.test', password: 'secret-password-1' });
    const token: string = reg.body.access_token;
    await request(t.app).post('/api/auth/login').send({ username: 'logger', password: 'wrong-password-2' });
    await request(t.app).post('/api/auth/login').send({ username: 'evil\r\nforged line', password: 'wrong-password-3' });
    await request(t.app).get('/api/auth/me').set(bearer(token));
    await request(t.app).put('/api/auth/password').set(bearer(token)).send({ current_password: 'secret-password-1', new_password: 'secret-password-4' });

    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    const requests = records.filter((r) => r.msg === 'request');
    expect(requests.map((r) => [r.method, r.route, r.status])).toEqual([
      ['POST', '/api/auth/register', 201],
      ['POST', '/api/auth/login', 401],
      ['POST', '/api/auth/login', 401],
      ['GET', '/api/auth/me', 200],
      ['PUT', '/api/auth/password', 204],
    ]);
    for (const r of requests) {
      expect(r.req_id).toEqual(expect.any(String));
      expect(r.duration_ms).toEqual(expect.any(Number));
    }
    expect(records.filter((r) => r.event === 'login_failed')).toHaveLength(2);
    const all = lines.join('\n');
    for (const secret of ['secret-password-1', 'wrong-password-2', 'wrong-password-3', 'secret-password-4', token, token.split('.')[2]!]) {
      expect(all).not.toContain(secret);
    }
    expect(lines.every((l) => !l.includes('\r\nforged'))).toBe(true);
  });

  it('log each KOReader sign-in refusal and each explicit sign-in, with neither the key nor its MD5', async () => {
    const reg = await request(t.app).post('/api/auth/register').send({ username: 'koreader', email: 'k@example.test', password: 'secret-password-5' });
    const key: string = (await request(t.app).post('/api/auth/keys').set(bearer(reg.body.access_token)).send({ name: 'kobo' })).body.key;
    const headers = koreaderHeaders('koreader', key);
    await request(t.app).get('/kosync/users/auth').set(koreaderHeaders('koreader', 'stk_wrong-key-6'));
    await request(t.app).get('/kosync/users/auth').set(headers);
    await request(t.app).get('/kosync/syncs/progress/0123456789abcdef0123456789abcdef').set(headers);

    const events = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => String(r.event).startsWith('kosync_'));
    expect(events.map((r) => [r.event, r.login ?? r.user_id, r.code])).toEqual([
      ['kosync_auth_failed', 'koreader', 'invalid_token'],
      ['kosync_auth_succeeded', reg.body.user.id, undefined],
    ]);
    const all = lines.join('\n');
    for (const secret of [key, headers['x-auth-key'], 'stk_wrong-key-6', koreaderHeaders('koreader', 'stk_wrong-key-6')['x-auth-key']]) {
      expect(all).not.toContain(secret);
    }
  });
});
