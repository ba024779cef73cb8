import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';
import { as } from '../support/acting-as.js';

let t: TestApp;
let admin: Session;
let alice: Session;
beforeEach(async () => {
  t = await startTestApp();
  admin = await registerUser(t.app, 'admin');
  alice = await registerUser(t.app, 'alice');
});
afterEach(() => t.close());


describe('admin user management', () => {
  it('is 403 permission_denied for a non-admin on every admin route', async () => {
    const attempts = [
      as(t.app, alice).get('/api/users'),
      as(t.app, alice).get(`/api/users/${admin.user.id}`),
      as(t.app, alice).patch(`/api/users/${alice.user.id}`, { roles: ['admin'] }),
      as(t.app, alice).del(`/api/users/${admin.user.id}`),
      as(t.app, alice).get('/api/roles'),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('permission_denied');
    }
    expect((await as(t.app, alice).get('/api/auth/me')).body.roles).toEqual(['user']);
  });

  it('lists accounts in the list envelope, with paging and a 422 for out-of-range sizes', async () => {
    const res = await as(t.app, admin).get('/api/users?page=1&page_size=1');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 2, page: 1, page_size: 1, total_pages: 2 });
    expect(res.body.items).toHaveLength(1);
    expect(res.body.items[0]).toMatchObject({ username: 'admin', disabled: false });
    expect(res.body.items[0].password_hash).toBeUndefined();
    for (const q of ['page_size=101', 'page_size=0', 'page=0', 'page=abc', 'page_size=10&page_size=20']) {
      const bad = await as(t.app, admin).get(`/api/users?${q}`);
      expect(bad.status, q).toBe(422);
      expect(bad.body.errors[0].location).toBe('query');
    }
  });

  it('reads one account, and 404s an unknown id and 422s a malformed one', async () => {
    expect((await as(t.app, admin).get(`/api/users/${alice.user.id}`)).body.username).toBe('alice');
    const missing = await as(t.app, admin).get('/api/users/no-such-user');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('user_not_found');
    expect((await as(t.app, admin).get('/api/users/bad%20id')).status).toBe(422);
  });

  it('applies a role change on the very next request made with the same token', async () => {
    expect((await as(t.app, alice).get('/api/users')).status).toBe(403);
    await as(t.app, admin).patch(`/api/users/${alice.user.id}`, { roles: ['admin'] }).expect(200);
    expect((await as(t.app, alice).get('/api/users')).status).toBe(200);
    await as(t.app, admin).patch(`/api/users/${alice.user.id}`, { roles: ['reader'] }).expect(200);
    const me = await as(t.app, alice).get('/api/auth/me');
    expect(me.body.permissions).toEqual(['books:read', 'shelves:read']);
  });

  it('refuses unknown roles and fields', async () => {
    expect((await as(t.app, admin).patch(`/api/users/${alice.user.id}`, { roles: ['superuser'] })).status).toBe(422);
    expect((await as(t.app, admin).patch(`/api/users/${alice.user.id}`, { username: 'renamed' })).status).toBe(422);
    expect((await as(t.app, admin).patch(`/api/users/${alice.user.id}`, {})).status).toBe(422);
  });

  it('disabling an account ends its sessions at once and for good; after enabling, a new login works', async () => {
    await as(t.app, admin).patch(`/api/users/${alice.user.id}`, { disabled: true }).expect(200);
    expect((await as(t.app, alice).get('/api/auth/me')).status).toBe(401);
    await as(t.app, admin).patch(`/api/users/${alice.user.id}`, { disabled: false }).expect(200);
    expect((await as(t.app, alice).get('/api/auth/me')).status).toBe(401);
    const login = await request(t.app).post('/api/auth/login').send({ username: 'alice', password: 'correct horse battery' }).expect(200);
    expect((await request(t.app).get('/api/auth/me').set(bearer(login.body.access_token))).status).toBe(200);
  });

  it('deleting an account makes its token fail and frees the username', async () => {
    expect((await as(t.app, admin).del(`/api/users/${alice.user.id}`)).status).toBe(204);
    expect((await as(t.app, alice).get('/api/auth/me')).status).toBe(401);
    expect((await as(t.app, admin).get(`/api/users/${alice.user.id}`)).status).toBe(404);
    await registerUser(t.app, 'alice');
  });

  it('keeps at least one active admin', async () => {
    const demote = await as(t.app, admin).patch(`/api/users/${admin.user.id}`, { roles: ['user'] });
    expect(demote.status).toBe(409);
    expect(demote.body.code).toBe('last_admin');
    expect((await as(t.app, admin).del(`/api/users/${admin.user.id}`)).status).toBe(409);
    await as(t.app, admin).patch(`/api/users/${alice.user.id}`, { roles: ['admin'] }).expect(200);
    expect((await as(t.app, admin).patch(`/api/users/${admin.user.id}`, { roles: ['user'] })).status).toBe(200);
  });

  it('lists the built-in roles with their permissions', async () => {
    const res = await as(t.app, admin).get('/api/roles');
    expect(res.body.items).toEqual([
      { name: 'admin', permissions: ['admin:*'] },
      { name: 'user', permissions: ['books:read', 'books:write', 'books:delete', 'shelves:read', 'shelves:write'] },
      { name: 'reader', permissions: ['books:read', 'shelves:read'] },
    ]);
  });
});
