import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, registerUser, startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(() => t.close());

const register = (body: object) => request(t.app).post('/api/auth/register').send(body);

describe('POST /api/auth/register', () => {
  it('creates the account and answers 201 with the token response', async () => {
    const res = await register({ username: 'Alice', email: 'Alice@Example.TEST', password: 'correct horse battery' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      access_token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      token_type: 'bearer',
      expires_in: 90 * 24 * 3600,
      user: {
        id: expect.any(String),
        username: 'Alice',
        email: 'alice@example.test',
        roles: ['admin'],
        permissions: ['admin:*'],
        auth_provider: 'local',
        sso: null,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      },
    });
  });

  it('makes only the first account admin; later ones get the default role', async () => {
    await registerUser(t.app, 'first');
    const second = await registerUser(t.app, 'second');
    expect(second.user.roles).toEqual(['user']);
    expect(second.user.permissions).toEqual(['books:read', 'books:write', 'books:delete', 'shelves:read', 'shelves:write']);
  });

  it('refuses a taken username case-insensitively and a taken e-mail with 409', async () => {
    await registerUser(t.app, 'bob');
    const sameName = await register({ username: 'BOB', email: 'other@example.test', password: 'long enough pw' });
    expect(sameName.status).toBe(409);
    expect(sameName.body.code).toBe('username_already_exists');
    const sameEmail = await register({ username: 'bobby', email: 'BOB@example.test', password: 'long enough pw' });
    expect(sameEmail.status).toBe(409);
    expect(sameEmail.body.code).toBe('email_already_exists');
  });

  it.each([
    ['short username', { username: 'ab', email: 'a@example.test', password: 'long enough pw' }, 'username'],
    ['username with spaces', { username: 'a b c', email: 'a@example.test', password: 'long enough pw' }, 'username'],
    ['bad e-mail', { username: 'carol', email: 'not-an-email', password: 'long enough pw' }, 'email'],
    ['7-character password', { username: 'carol', email: 'c@example.test', password: 'short12' }, 'password'],
    ['missing password', { username: 'carol', email: 'c@example.test' }, 'password'],
    ['number as username', { username: 12345, email: 'c@example.test', password: 'long enough pw' }, 'username'],
  ])('answers 422 validation_failed for a %s', async (_name, body, field) => {
    const res = await register(body);
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('validation_failed');
    expect(res.body.errors).toContainEqual(expect.objectContaining({ location: 'body', field }));
  });

  it('refuses passwords over 72 UTF-8 bytes with 422 password_too_long, and accepts exactly 72', async () => {
    const tooLong = await register({ username: 'dave', email: 'd@example.test', password: 'a'.repeat(72) + 'X' });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.code).toBe('password_too_long');
    const emoji = await register({ username: 'dave', email: 'd@example.test', password: '😀'.repeat(19) });
    expect(emoji.status).toBe(422);
    expect(emoji.body.code).toBe('password_too_long');
    const exact = await register({ username: 'dave', email: 'd@example.test', password: 'a'.repeat(72) });
    expect(exact.status).toBe(201);
  });

  it('ignores no mass assignment: a roles field is refused and no account is created', async () => {
    await registerUser(t.app, 'owner');
    const res = await register({ username: 'mallory', email: 'm@example.test', password: 'long enough pw', roles: ['admin'] });
    expect(res.status).toBe(422);
    const login = await request(t.app).post('/api/auth/login').send({ username: 'mallory', password: 'long enough pw' });
    expect(login.status).toBe(401);
  });

  it('refuses a prototype-pollution body and keeps later users unprivileged', async () => {
    await registerUser(t.app, 'owner');
    const res = await request(t.app)
      .post('/api/auth/register')
      .set('Content-Type', 'application/json')
      .send('{"username":"eve","email":"e@example.test","password":"long enough pw","__proto__":{"roles":["admin"]}}');
    expect(res.status).toBe(422);
    const later = await registerUser(t.app, 'later');
    expect(later.user.roles).toEqual(['user']);
  });

  it('answers 415 for a body that is not JSON and 400 for malformed JSON', async () => {
    const text = await request(t.app).post('/api/auth/register').set('Content-Type', 'text/plain').send('username=x');
    expect(text.status).toBe(415);
    expect(text.body.code).toBe('unsupported_media_type');
    const broken = await request(t.app).post('/api/auth/register').set('Content-Type', 'application/json').send('{"username":');
    expect(broken.status).toBe(400);
    expect(broken.body.code).toBe('malformed_json');
    expect(JSON.stringify(broken.body)).not.toMatch(/SyntaxError|at .*\(|node_modules/);
  });

  it('answers 413 for a JSON body over 100 KB', async () => {
    const res = await register({ username: 'big', email: 'b@example.test', password: 'x'.repeat(101 * 1024) });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
  });

  it('is 403 registration_closed when REGISTRATION=closed', async () => {
    const closed = await startTestApp({ REGISTRATION: 'closed' });
    try {
      const res = await request(closed.app).post('/api/auth/register').send({ username: 'zed', email: 'z@example.test', password: 'long enough pw' });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('registration_closed');
      const config = await request(closed.app).get('/api/auth/config');
      expect(config.body).toEqual({ registration_enabled: false, local_login_enabled: true, oidc_enabled: false });
    } finally {
      await closed.close();
    }
  });

  it('with ADMIN_* set creates that admin at start, and the first registered user is not admin', async () => {
    const withAdmin = await startTestApp({ ADMIN_USERNAME: 'root', ADMIN_EMAIL: 'root@example.test', ADMIN_PASSWORD: 'bootstrap secret' });
    try {
      const first = await registerUser(withAdmin.app, 'firstcomer');
      expect(first.user.roles).toEqual(['user']);
      const login = await request(withAdmin.app).post('/api/auth/login').send({ username: 'root', password: 'bootstrap secret' });
      expect(login.status).toBe(200);
      expect(login.body.user.roles).toEqual(['admin']);
      const users = await request(withAdmin.app).get('/api/users').set(bearer(login.body.access_token));
      expect(users.body.total).toBe(2);
    } finally {
      await withAdmin.close();
    }
  });
});
