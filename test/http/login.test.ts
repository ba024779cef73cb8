import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LoginPolicies } from '../../src/application/use-cases/login-user.js';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';
import { FakeClock } from '../support/clock.js';

const MINUTE = 60_000;
const policies: LoginPolicies = {
  account: { maxFailures: 10, windowMs: 15 * MINUTE, blockMs: 5 * MINUTE, maxBlockMs: 60 * MINUTE },
  address: { maxFailures: 30, windowMs: 60 * MINUTE, blockMs: 15 * MINUTE, maxBlockMs: 60 * MINUTE },
};

let t: TestApp;
let clock: FakeClock;
let admin: Session;
beforeEach(async () => {
  clock = new FakeClock();
  t = await startTestApp({}, { clock, loginPolicies: policies });
  admin = await registerUser(t.app, 'admin', 'admin password 1');
  await registerUser(t.app, 'alice', 'alice password 1');
});
afterEach(() => t.close());

const login = (username: string, password: string, ip?: string) => {
  const req = request(t.app).post('/api/auth/login');
  if (ip) req.set('X-Forwarded-For', ip);
  return req.send({ username, password });
};

const strip = (res: request.Response) => ({ status: res.status, body: res.text, type: res.headers['content-type'] });

describe('POST /api/auth/login', () => {
  it('signs in by username (any case) or by e-mail', async () => {
    for (const name of ['alice', 'ALICE', 'alice@example.test', 'Alice@Example.Test']) {
      const res = await login(name, 'alice password 1');
      expect(res.status, name).toBe(200);
      expect(res.body.user.username).toBe('alice');
      expect(res.body.token_type).toBe('bearer');
    }
  });

  it('answers the same 401 for unknown user, wrong password and disabled account', async () => {
    const bob = await registerUser(t.app, 'bob', 'bob password 12');
    await request(t.app).patch(`/api/users/${bob.user.id}`).set(bearer(admin.token)).send({ disabled: true }).expect(200);
    const unknown = await login('nobody', 'whatever pw 1');
    const wrong = await login('alice', 'wrong password');
    const disabled = await login('bob', 'bob password 12');
    expect(unknown.status).toBe(401);
    expect(unknown.body.code).toBe('invalid_credentials');
    expect(strip(wrong)).toEqual(strip(unknown));
    expect(strip(disabled)).toEqual(strip(unknown));
  });

  it('checks the whole password: a 73-byte variant never matches a 72-byte one', async () => {
    await registerUser(t.app, 'long', 'a'.repeat(72));
    expect((await login('long', 'a'.repeat(72) + 'Y')).status).toBe(401);
    expect((await login('long', 'a'.repeat(72))).status).toBe(200);
  });

  it('blocks an account after 10 failures, refusing even the right password, until the block ends', async () => {
    for (let i = 0; i < 10; i++) expect((await login('alice', `wrong ${i}`)).status).toBe(401);
    const blocked = await login('alice', 'alice password 1');
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe('rate_limited');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(blocked.headers['retry-after'])).toBeLessThanOrEqual(300);
    expect((await login('admin', 'admin password 1')).status).toBe(200);
    clock.advance(5 * MINUTE + 1000);
    expect((await login('alice', 'alice password 1')).status).toBe(200);
  });

  it('grows the block when failures continue after it', async () => {
    for (let i = 0; i < 10; i++) await login('alice', 'wrong');
    clock.advance(5 * MINUTE + 1000);
    for (let i = 0; i < 10; i++) await login('alice', 'wrong');
    const second = await login('alice', 'alice password 1');
    expect(second.status).toBe(429);
    expect(Number(second.headers['retry-after'])).toBeGreaterThan(300);
  });

  it('counts case variants and the e-mail as one account', async () => {
    const names = ['alice', 'ALICE', 'Alice', 'alice@example.test', 'ALICE@EXAMPLE.TEST'];
    for (let i = 0; i < 10; i++) await login(names[i % names.length]!, 'wrong');
    expect((await login('alice', 'alice password 1')).status).toBe(429);
  });

  it('resets the account counter on success', async () => {
    for (let i = 0; i < 9; i++) await login('alice', 'wrong');
    expect((await login('alice', 'alice password 1')).status).toBe(200);
    for (let i = 0; i < 9; i++) await login('alice', 'wrong');
    expect((await login('alice', 'alice password 1')).status).toBe(200);
  });

  it('does not trust X-Forwarded-For: rotating it does not escape the address limit', async () => {
    for (let i = 0; i < 30; i++) await login(`ghost${i}`, 'wrong', `10.0.0.${i}`);
    const res = await login('alice', 'alice password 1', '10.9.9.9');
    expect(res.status).toBe(429);
  });

  it('is 403 local_login_disabled when LOCAL_LOGIN=false', async () => {
    const off = await startTestApp({ LOCAL_LOGIN: 'false' });
    try {
      const res = await request(off.app).post('/api/auth/login').send({ username: 'x', password: 'y' });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('local_login_disabled');
    } finally {
      await off.close();
    }
  });

  it('refuses NoSQL-operator objects and form-encoded bodies', async () => {
    const operator = await request(t.app).post('/api/auth/login').send({ username: { $ne: null }, password: { $ne: null } });
    expect(operator.status).toBe(422);
    const form = await request(t.app).post('/api/auth/login').type('form').send('username=alice&password=alice+password+1');
    expect(form.status).toBe(415);
  });

  it('has no GET form that takes credentials in the URL', async () => {
    const res = await request(t.app).get('/api/auth/login?username=alice&password=alice%20password%201');
    expect(res.status).toBe(405);
    expect(res.body.access_token).toBeUndefined();
  });
});
