import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { UserRepository } from '../../src/application/ports.js';
import { PORTS } from '../../src/bootstrap/tokens.js';
import { as } from '../support/acting-as.js';
import { addKobo, koboCall, syncRound } from '../support/kobo.js';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';

describe('Kobo devices (/api/auth/kobo)', () => {
  let t: TestApp;
  let lines: string[];
  let admin: Session;
  let alice: Session;

  beforeEach(async () => {
    lines = [];
    t = await startTestApp({ PUBLIC_URL: 'https://books.example.test' }, {}, lines);
    admin = await registerUser(t.app, 'admin');
    alice = await registerUser(t.app, 'alice');
  });
  afterEach(() => t.close());

  it('adds a device: 201 with its sync URL under PUBLIC_URL shown once, listed without it', async () => {
    const created = await as(t.app, alice).post('/api/auth/kobo', { name: '  Kobo Libra Colour ' });
    expect(created.status).toBe(201);
    expect(created.headers.location).toBe(`/api/auth/kobo/${created.body.id}`);
    expect(created.body).toEqual({ id: expect.any(String), name: 'Kobo Libra Colour', shelf_ids: [], url: expect.stringMatching(/^https:\/\/books\.example\.test\/kobo\/[A-Za-z0-9_-]{43}$/),
      last_used_at: null, created_at: expect.any(String) });
    const listed = await as(t.app, alice).get('/api/auth/kobo');
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ total: 1, page: 1, items: [{ id: created.body.id, name: 'Kobo Libra Colour', shelf_ids: [] }] });
    const secret = created.body.url.split('/').pop() as string;
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect((await as(t.app, admin).get('/api/auth/kobo')).body.total).toBe(0);
  });

  it('with PUBLIC_URL set, the sync URL and every URL the device is given are PUBLIC_URL whatever the Host says', async () => {
    const created = await request(t.app).post('/api/auth/kobo').set(bearer(alice.token)).set('Host', 'evil.example:8000').send({ name: 'Kobo' });
    expect(created.body.url).toMatch(/^https:\/\/books\.example\.test\/kobo\//);
    const device = { base: new URL(created.body.url).pathname };
    const init = await koboCall(t.app, device, 'get', '/v1/initialization').set('Host', 'evil.example:8000');
    expect(init.status).toBe(200);
    expect(JSON.stringify(init.body)).not.toContain('evil.example');
    expect(init.body.Resources.library_sync).toBe(`https://books.example.test${device.base}/v1/library/sync`);
  });

  it('refuses names with control characters, tabs or line breaks, empty names, unknown fields, and shelves the owner cannot see (422)', async () => {
    const own = await as(t.app, alice).post('/api/shelves', { name: 'Mine' });
    const theirs = await as(t.app, admin).post('/api/shelves', { name: 'Private' });
    const bodies = [{ name: 'a\tb' }, { name: 'a\nb' }, { name: 'a\u0000b' }, { name: 'a\u009fb' }, { name: '   ' }, { name: 'ok', extra: 1 },
      { name: 'ok', shelf_ids: [theirs.body.id] }, { name: 'ok', shelf_ids: ['nope'] }, { name: 'ok', shelf_ids: [own.body.id, own.body.id] }];
    for (const body of bodies) {
      const res = await as(t.app, alice).post('/api/auth/kobo', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.code).toBe('validation_failed');
    }
    expect((await as(t.app, alice).post('/api/auth/kobo', { name: 'ok', shelf_ids: [own.body.id] })).body.shelf_ids).toEqual([own.body.id]);
  });

  it('lets only a signed-in session manage devices: a personal API key gets 403 on all three routes', async () => {
    const key = (await as(t.app, alice).post('/api/auth/keys', { name: 'script' })).body.key as string;
    const device = await addKobo(t.app, alice);
    expect((await request(t.app).post('/api/auth/kobo').set(bearer(key)).send({ name: 'x' })).status).toBe(403);
    expect((await request(t.app).get('/api/auth/kobo').set(bearer(key))).status).toBe(403);
    expect((await request(t.app).delete(`/api/auth/kobo/${device.id}`).set(bearer(key))).status).toBe(403);
    expect((await request(t.app).get('/api/auth/kobo')).status).toBe(401);
  });

  it('stops a sync URL at once when the device is deleted (204, then 404 for a second delete or someone else)', async () => {
    const device = await addKobo(t.app, alice);
    expect((await koboCall(t.app, device, 'get', '/v1/initialization')).status).toBe(200);
    expect((await as(t.app, admin).del(`/api/auth/kobo/${device.id}`)).status).toBe(404);
    expect((await as(t.app, alice).del(`/api/auth/kobo/${device.id}`)).status).toBe(204);
    expect((await as(t.app, alice).del(`/api/auth/kobo/${device.id}`)).status).toBe(404);
    for (const path of ['/v1/initialization', '/v1/library/sync', '/v1/user/profile']) {
      expect((await koboCall(t.app, device, 'get', path)).status).toBe(401);
    }
  });

  it("ends a device with its owner's access: disabled (and re-enabled), or a password change", async () => {
    const device = await addKobo(t.app, alice);
    await as(t.app, admin).patch(`/api/users/${alice.user.id}`, { disabled: true }).expect(200);
    expect((await koboCall(t.app, device, 'get', '/v1/library/sync')).status).toBe(401);
    await as(t.app, admin).patch(`/api/users/${alice.user.id}`, { disabled: false }).expect(200);
    expect((await koboCall(t.app, device, 'get', '/v1/library/sync')).status).toBe(401);
    const bob = await registerUser(t.app, 'bob');
    const bobs = await addKobo(t.app, bob);
    await as(t.app, bob).put('/api/auth/password', { current_password: 'correct horse battery', new_password: 'another horse battery' }).expect(204);
    expect((await koboCall(t.app, bobs, 'get', '/v1/library/sync')).status).toBe(401);
  });

  it("re-checks the owner's permissions on every request: without books:read the device gets 403", async () => {
    const device = await addKobo(t.app, alice);
    expect((await syncRound(t.app, device)).items).toEqual([]);
    // Every built-in role reads books; a stored account without roles is what a narrower role would be.
    await t.container.di.resolve<UserRepository>(PORTS.UserRepository).updateAccess(alice.user.id, { roles: [] }, new Date());
    expect((await koboCall(t.app, device, 'get', '/v1/library/sync')).status).toBe(403);
  });

  it('never logs the secret of a sync URL: the request log shows /kobo/[secret]', async () => {
    const device = await addKobo(t.app, alice);
    const secret = device.base.split('/').pop()!;
    await koboCall(t.app, device, 'get', '/v1/library/sync');
    await koboCall(t.app, device, 'get', '/v1/user/profile?x=1');
    await koboCall(t.app, { base: '/kobo/wrong-secret-value' }, 'get', '/v1/library/sync');
    const requests = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.msg === 'request' && String(r.path).startsWith('/kobo'));
    expect(requests.map((r) => [r.path, r.status])).toEqual([
      ['/kobo/[secret]/v1/library/sync', 200], ['/kobo/[secret]/v1/user/profile', 200], ['/kobo/[secret]/v1/library/sync', 401],
    ]);
    expect(requests[0]!.route).toBe('/kobo/[secret]/v1/library/sync');
    expect(lines.join('\n')).not.toContain(secret);
    expect(lines.join('\n')).not.toContain('wrong-secret-value');
  });

  it('never logs the secret under another spelling of /kobo either (none a door): case, repeated slashes, dot segments, percent-encoding', async () => {
    const device = await addKobo(t.app, alice);
    const secret = device.base.split('/').pop()!;
    const spellings = [
      `/Kobo/${secret}`, `/KOBO/${secret}`, `//kobo/${secret}`, `/kobo//${secret}`, `///KoBo///${secret}`, `/%6Bobo/${secret}`, `/%6b%4F%62%6f/${secret}`,
      `/%256Bobo/${secret}`, `/kobo%2F${secret}`, `/kobo%2f%2f${secret}`, `/./kobo/${secret}`, `/kobo/./${secret}`, `/kobo/../${secret}`,
    ];
    const before = lines.length;
    for (const base of spellings) expect([401, 404]).toContain((await koboCall(t.app, { base }, 'get', '/v1/library/sync')).status);
    const requests = lines.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.msg === 'request');
    expect(requests).toHaveLength(spellings.length);
    for (const r of requests) expect(r.path).toMatch(/\[secret\]\/v1\/library\/sync$/);
    expect(lines.join('\n')).not.toContain(secret);
    expect(lines.join('\n')).not.toContain(secret.slice(0, 20));
  });

  it('never logs the secret after spellings no router answers either: kobo;x, kobo., a segment before .., a backslash', async () => {
    const device = await addKobo(t.app, alice);
    const secret = device.base.split('/').pop()!;
    const spellings = [`/kobo;x/${secret}`, `/kobo./${secret}`, `/x/../kobo/${secret}`, `/api/../kobo/${secret}`, `/kobo\\${secret}`, `/KOBO%5C${secret}`];
    const before = lines.length;
    for (const base of spellings) expect((await koboCall(t.app, { base }, 'get', '/v1/initialization')).status).toBeLessThan(500);
    const requests = lines.slice(before).map((l) => JSON.parse(l) as Record<string, unknown>).filter((r) => r.msg === 'request');
    expect(requests).toHaveLength(spellings.length);
    for (const r of requests) expect(r.path).toMatch(/kobo\/?\[secret\]/i);
    expect(lines.join('\n')).not.toContain(secret);
    expect(lines.join('\n')).not.toContain(secret.slice(0, 20));
  });
});

describe('Kobo sync URLs when PUBLIC_URL is unset: the scheme and host the request came by', () => {
  let t: TestApp;
  afterEach(() => t.close());

  it('gives a device on the network a URL it can reach, and never echoes a Host that is no host[:port]', async () => {
    t = await startTestApp();
    const alice = await registerUser(t.app, 'alice');
    const created = await request(t.app).post('/api/auth/kobo').set(bearer(alice.token)).set('Host', '192.168.1.20:8000').send({ name: 'Kobo' });
    expect(created.status).toBe(201);
    expect(created.body.url).toMatch(/^http:\/\/192\.168\.1\.20:8000\/kobo\/[A-Za-z0-9_-]{43}$/);
    const device = { base: new URL(created.body.url).pathname };
    const init = await koboCall(t.app, device, 'get', '/v1/initialization').set('Host', 'Books.Lan:8000');
    expect(init.body.Resources.library_sync).toBe(`http://books.lan:8000${device.base}/v1/library/sync`);
    for (const hostile of ['evil.example/"><script>', 'evil.example@x', 'evil.example:80:80']) {
      const res = await koboCall(t.app, device, 'get', '/v1/initialization').set('X-Forwarded-Host', hostile).set('Host', hostile);
      expect(JSON.stringify(res.body), hostile).not.toContain('evil');
    }
  });
});
