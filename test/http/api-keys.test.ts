import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock, TEST_NOW } from '../support/clock.js';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';

const PASSWORD = 'correct horse battery';
let t: TestApp;
let clock: FakeClock;
let lines: string[];
let admin: Session;
let alice: Session;
let bob: Session;
beforeEach(async () => {
  clock = new FakeClock();
  lines = [];
  t = await startTestApp({}, { clock }, lines);
  admin = await registerUser(t.app, 'admin');
  alice = await registerUser(t.app, 'alice', PASSWORD);
  bob = await registerUser(t.app, 'bob', PASSWORD);
});
afterEach(() => t.close());

const api = () => request(t.app);
async function createKey(session: Session | string, body: object = { name: 'script' }) {
  const token = typeof session === 'string' ? session : session.token;
  return api().post('/api/auth/keys').set(bearer(token)).send(body);
}
async function keyOf(session: Session, body?: object): Promise<{ id: string; key: string }> {
  const res = await createKey(session, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}
const asAdmin = (roles: string[], user: Session) => api().patch(`/api/users/${user.user.id}`).set(bearer(admin.token)).send({ roles });

describe('POST/GET/DELETE /api/auth/keys', () => {
  it('shows the stk_ secret once, lists keys without it, and revokes with 204', async () => {
    const created = await createKey(alice, { name: 'kobo', expires_at: '2027-01-01T00:00:00Z' });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`/api/auth/keys/${created.body.id}`);
    expect(created.body).toEqual({
      id: expect.any(String), name: 'kobo', key: expect.stringMatching(/^stk_[A-Za-z0-9_-]{43}$/),
      prefix: created.body.key.slice(4, 12), permissions: ['books:read', 'books:write', 'books:delete', 'shelves:read', 'shelves:write'],
      expires_at: '2027-01-01T00:00:00.000Z', last_used_at: null, created_at: TEST_NOW.toISOString(),
    });
    const listed = await api().get('/api/auth/keys').set(bearer(alice.token));
    expect(listed.status).toBe(200);
    const { key: _secret, ...withoutSecret } = created.body;
    expect(listed.body).toEqual({ items: [withoutSecret], total: 1, page: 1, page_size: 20, total_pages: 1 });
    expect(JSON.stringify(listed.body)).not.toContain(created.body.key.slice(12));
    expect((await api().get('/api/auth/keys').set(bearer(bob.token))).body.total).toBe(0);

    expect((await api().delete(`/api/auth/keys/${created.body.id}`).set(bearer(alice.token))).status).toBe(204);
    expect((await api().get('/api/auth/me').set(bearer(created.body.key))).body.code).toBe('invalid_token');
    expect((await api().delete(`/api/auth/keys/${created.body.id}`).set(bearer(alice.token))).status).toBe(404);
  });

  it('refuses bad input: no name, an unknown permission, a past expiry, extra fields', async () => {
    for (const body of [{}, { name: ' ' }, { name: 'k', permissions: ['books:steal'] }, { name: 'k', expires_at: '2020-01-01T00:00:00Z' }, { name: 'k', key: 'stk_mine' }]) {
      const res = await createKey(alice, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
  });
});

describe('a key as bearer token', () => {
  it('acts as its owner, records last_used_at, and stays within its permissions', async () => {
    const { id, key } = await keyOf(alice, { name: 'reader', permissions: ['books:read', 'shelves:read'] });
    const me = await api().get('/api/auth/me').set(bearer(key));
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(alice.user.id);
    expect((await api().get('/api/books').set(bearer(key))).status).toBe(200);
    expect((await api().post('/api/shelves').set(bearer(key)).send({ name: 'nope' })).status).toBe(403);
    const listed = await api().get('/api/auth/keys').set(bearer(alice.token));
    expect(listed.body.items.find((k: { id: string }) => k.id === id).last_used_at).toBe(TEST_NOW.toISOString());
  });

  it('loses what its owner loses at once, on the next request', async () => {
    const { key } = await keyOf(alice);
    expect((await api().post('/api/shelves').set(bearer(key)).send({ name: 'before' })).status).toBe(201);
    expect((await asAdmin(['reader'], alice)).status).toBe(200);
    expect((await api().post('/api/shelves').set(bearer(key)).send({ name: 'after' })).status).toBe(403);
    expect((await api().get('/api/shelves').set(bearer(key))).status).toBe(200);
  });

  it('is refused once expired (401 invalid_token)', async () => {
    const { key } = await keyOf(alice, { name: 'short', expires_at: new Date(TEST_NOW.getTime() + 60_000).toISOString() });
    expect((await api().get('/api/auth/me').set(bearer(key))).status).toBe(200);
    clock.advance(60_000);
    const res = await api().get('/api/auth/me').set(bearer(key));
    expect([res.status, res.body.code]).toEqual([401, 'invalid_token']);
  });

  it("is refused while its owner is disabled, and still after re-enabling", async () => {
    const { key } = await keyOf(alice);
    await api().patch(`/api/users/${alice.user.id}`).set(bearer(admin.token)).send({ disabled: true });
    expect((await api().get('/api/auth/me').set(bearer(key))).status).toBe(401);
    await api().patch(`/api/users/${alice.user.id}`).set(bearer(admin.token)).send({ disabled: false });
    expect((await api().get('/api/auth/me').set(bearer(key))).body.code).toBe('invalid_token');
  });

  it('cannot mint keys, change the password, or log out (403)', async () => {
    const { key } = await keyOf(alice);
    expect((await createKey(key)).status).toBe(403);
    const change = await api().put('/api/auth/password').set(bearer(key)).send({ current_password: PASSWORD, new_password: 'another good password' });
    expect([change.status, change.body.code]).toEqual([403, 'permission_denied']);
    expect((await api().post('/api/auth/logout').set(bearer(key))).status).toBe(403);
    expect((await api().post('/api/auth/login').send({ username: 'alice', password: PASSWORD })).status).toBe(200);
  });

  it('cannot list or revoke keys, its own owner’s or itself, whatever its permissions (403): keys are managed from a session', async () => {
    const full = await keyOf(alice);
    const reading = await keyOf(alice, { name: 'reader', permissions: ['books:read'] });
    const adminKey = await keyOf(admin, { name: 'admin script' });
    for (const key of [full.key, reading.key, adminKey.key]) {
      const list = await api().get('/api/auth/keys').set(bearer(key));
      expect([list.status, list.body.code]).toEqual([403, 'permission_denied']);
      for (const id of [full.id, reading.id]) {
        const revoke = await api().delete(`/api/auth/keys/${id}`).set(bearer(key));
        expect([revoke.status, revoke.body.code]).toEqual([403, 'permission_denied']);
      }
      expect((await createKey(key)).status).toBe(403);
    }
    expect((await api().get(`/api/users/${alice.user.id}/keys`).set(bearer(adminKey.key))).status).toBe(403);
    expect((await api().delete(`/api/users/${alice.user.id}/keys/${full.id}`).set(bearer(adminKey.key))).status).toBe(403);
    expect((await api().get('/api/auth/keys').set(bearer(alice.token))).body.total).toBe(2);
    expect((await api().get('/api/auth/me').set(bearer(reading.key))).status).toBe(200);
  });
});

describe('admin routes', () => {
  it("list and revoke any user's keys; others get 403; unknown ids 404", async () => {
    const { id, key } = await keyOf(alice);
    const listed = await api().get(`/api/users/${alice.user.id}/keys`).set(bearer(admin.token));
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((k: { id: string; key?: string }) => [k.id, k.key])).toEqual([[id, undefined]]);
    expect((await api().get(`/api/users/${alice.user.id}/keys`).set(bearer(bob.token))).status).toBe(403);
    expect((await api().delete(`/api/users/${alice.user.id}/keys/${id}`).set(bearer(bob.token))).status).toBe(403);
    expect((await api().get('/api/users/ghost/keys').set(bearer(admin.token))).status).toBe(404);
    expect((await api().delete(`/api/users/${bob.user.id}/keys/${id}`).set(bearer(admin.token))).status).toBe(404);
    expect((await api().delete(`/api/users/${alice.user.id}/keys/${id}`).set(bearer(admin.token))).status).toBe(204);
    expect((await api().get('/api/auth/me').set(bearer(key))).status).toBe(401);
  });

  it("an admin's key limited to books:read cannot use the admin routes", async () => {
    const { key } = await keyOf(admin, { name: 'ro', permissions: ['books:read'] });
    expect((await api().get(`/api/users/${alice.user.id}/keys`).set(bearer(key))).status).toBe(403);
    expect((await api().get('/api/users').set(bearer(key))).status).toBe(403);
  });
});

describe('OPDS Basic with a key as the password', () => {
  it("opens the catalog as the key's owner, and only under the owner's username", async () => {
    const { id, key } = await keyOf(alice, { name: 'reader app', permissions: ['books:read', 'shelves:read'] });
    expect((await api().get('/opds').auth('alice', key)).status).toBe(200);
    expect((await api().get('/opds').auth('ALICE', key)).status).toBe(200);
    const wrongUser = await api().get('/opds').auth('bob', key);
    expect(wrongUser.status).toBe(401);
    expect(wrongUser.headers['www-authenticate']).toMatch(/^Basic/);
    await api().delete(`/api/auth/keys/${id}`).set(bearer(alice.token));
    expect((await api().get('/opds').auth('alice', key)).status).toBe(401);
  });

  it('is refused when the key lacks books:read', async () => {
    const { key } = await keyOf(alice, { name: 'shelves only', permissions: ['shelves:read'] });
    expect((await api().get('/opds/books').auth('alice', key)).status).toBe(403);
  });
});

describe('logs', () => {
  it('never carry a key secret', async () => {
    const { key } = await keyOf(alice);
    await api().get('/api/auth/me').set(bearer(key));
    await api().get('/api/auth/me').set(bearer(`${key}x`));
    await api().get('/opds').auth('alice', key);
    expect(lines.length).toBeGreaterThan(3);
    expect(lines.join('\n')).not.toContain(key.slice(12));
  });
});
