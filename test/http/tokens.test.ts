import jwt from 'jsonwebtoken';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, registerUser, startTestApp, TEST_JWT_SECRET, type Session, type TestApp } from '../support/test-app.js';

let t: TestApp;
let alice: Session;
beforeEach(async () => {
  t = await startTestApp();
  await registerUser(t.app, 'admin');
  alice = await registerUser(t.app, 'alice', 'alice password 1');
});
afterEach(() => t.close());

const me = (headers: Record<string, string> = {}) => request(t.app).get('/api/auth/me').set(headers);
const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
const now = () => Math.floor(Date.now() / 1000);
const claims = () => ({ sub: alice.user.id, jti: 'forged-jti-0001', iat: now(), exp: now() + 3600, iss: 'stacks', aud: 'stacks', tv: 0 });

describe('GET /api/auth/me', () => {
  it('returns the signed-in user', async () => {
    const res = await me(bearer(alice.token));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(alice.user);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('is 401 missing_token without a bearer token, with WWW-Authenticate', async () => {
    for (const headers of [{} as Record<string, string>, { Authorization: '' }, { Authorization: 'Basic YTpi' }, { Authorization: alice.token }]) {
      const res = await me(headers);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('missing_token');
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
  });

  it('never takes the token from the query string or a cookie', async () => {
    expect((await request(t.app).get(`/api/auth/me?access_token=${alice.token}`)).status).toBe(401);
    expect((await request(t.app).get('/api/auth/me').set('Cookie', `token=${alice.token}`)).status).toBe(401);
  });

  const forged: Array<[string, () => string]> = [
    ['alg none', () => `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims())}.`],
    ['alg None', () => `${b64({ alg: 'None', typ: 'JWT' })}.${b64(claims())}.`],
    ['HS512 with the real secret', () => jwt.sign(claims(), TEST_JWT_SECRET, { algorithm: 'HS512' })],
    ['signed with another secret', () => jwt.sign(claims(), 'another-secret-that-is-32-bytes-long!!!', { algorithm: 'HS256' })],
    ['expired', () => jwt.sign({ ...claims(), exp: now() - 120 }, TEST_JWT_SECRET, { algorithm: 'HS256' })],
    ['without exp', () => jwt.sign((({ exp: _e, ...c }) => c)(claims()), TEST_JWT_SECRET, { algorithm: 'HS256' })],
    ['wrong audience', () => jwt.sign({ ...claims(), aud: 'other' }, TEST_JWT_SECRET, { algorithm: 'HS256' })],
    ['wrong issuer', () => jwt.sign({ ...claims(), iss: 'evil' }, TEST_JWT_SECRET, { algorithm: 'HS256' })],
    ['not yet valid', () => jwt.sign({ ...claims(), nbf: now() + 300 }, TEST_JWT_SECRET, { algorithm: 'HS256' })],
    ['tampered payload', () => {
      const [h, , s] = alice.token.split('.');
      return `${h}.${b64({ ...claims(), sub: 'someone-else' })}.${s}`;
    }],
    ['garbage', () => 'not.a.jwt'],
  ];
  it.each(forged)('refuses a token %s with 401 invalid_token', async (_name, make) => {
    const res = await me(bearer(make()));
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('invalid_token');
  });

  it('accepts a correctly signed token made with the real key (so the forged cases fail for their flaw)', async () => {
    const token = jwt.sign(claims(), TEST_JWT_SECRET, { algorithm: 'HS256' });
    expect((await me(bearer(token))).status).toBe(200);
  });

  it('issues tokens that expire after 90 days by default', () => {
    const payload = jwt.decode(alice.token) as { iat: number; exp: number; iss: string; aud: string };
    expect(payload.exp - payload.iat).toBe(90 * 24 * 3600);
    expect(payload).toMatchObject({ iss: 'stacks', aud: 'stacks' });
  });
});

describe('POST /api/auth/logout', () => {
  it('revokes that token at once and leaves other tokens working', async () => {
    const second = await request(t.app).post('/api/auth/login').send({ username: 'alice', password: 'alice password 1' });
    expect((await request(t.app).post('/api/auth/logout').set(bearer(alice.token))).status).toBe(204);
    const after = await me(bearer(alice.token));
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('invalid_token');
    expect((await me(bearer(second.body.access_token))).status).toBe(200);
  });
});

describe('PUT /api/auth/password', () => {
  const change = (token: string, body: object) => request(t.app).put('/api/auth/password').set(bearer(token)).send(body);

  it('needs the current password', async () => {
    const res = await change(alice.token, { current_password: 'wrong one', new_password: 'brand new password' });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('invalid_current_password');
    expect((await change(alice.token, { new_password: 'brand new password' })).status).toBe(422);
  });

  it('refuses a new password over 72 bytes', async () => {
    const res = await change(alice.token, { current_password: 'alice password 1', new_password: 'é'.repeat(37) });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('password_too_long');
  });

  it('revokes every older token; the new password works and the old one does not', async () => {
    const other = await request(t.app).post('/api/auth/login').send({ username: 'alice', password: 'alice password 1' });
    expect((await change(alice.token, { current_password: 'alice password 1', new_password: 'brand new password' })).status).toBe(204);
    expect((await me(bearer(alice.token))).status).toBe(401);
    expect((await me(bearer(other.body.access_token))).status).toBe(401);
    expect((await request(t.app).post('/api/auth/login').send({ username: 'alice', password: 'alice password 1' })).status).toBe(401);
    const fresh = await request(t.app).post('/api/auth/login').send({ username: 'alice', password: 'brand new password' });
    expect(fresh.status).toBe(200);
    expect((await me(bearer(fresh.body.access_token))).status).toBe(200);
  });
});
