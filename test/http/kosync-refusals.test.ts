import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ApiKeyRepository } from '../../src/application/ports.js';
import { PORTS } from '../../src/bootstrap/tokens.js';
import { as } from '../support/acting-as.js';
import { FakeClock, TEST_NOW } from '../support/clock.js';
import { koreaderHeaders } from '../support/koreader.js';
import { registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';

const DOC = '0123456789abcdef0123456789abcdef';
const KOSYNC_TYPE = 'application/json';
const push = { document: DOC, progress: '/body/DocFragment[1]/body/p[1]/text().0', percentage: 0.5, device: 'Kobo', device_id: 'K1' };

describe('KOReader sync refusals', () => {
  let t: TestApp;
  let clock: FakeClock;
  let admin: Session;
  let alice: Session;
  let aliceKey: string;

  beforeEach(async () => {
    clock = new FakeClock();
    t = await startTestApp({}, { clock });
    admin = await registerUser(t.app, 'admin');
    alice = await registerUser(t.app, 'alice');
    aliceKey = (await as(t.app, alice).post('/api/auth/keys', { name: 'kobo' })).body.key;
  });
  afterEach(() => t.close());

  const auth = (user: string, password: string) => request(t.app).get('/kosync/users/auth').set(koreaderHeaders(user, password));
  const refused = (res: request.Response) => res.status === 401 && res.headers['content-type'] === KOSYNC_TYPE && JSON.parse(res.text).message.startsWith('Wrong username or key.');
  /** A refusal as KOReader reads it: exactly application/json, {code, message} with a message for a person. */
  const kosyncRefusal = (res: request.Response) => ({
    status: res.status, type: res.headers['content-type'], code: JSON.parse(res.text).code, message: typeof JSON.parse(res.text).message === 'string' && JSON.parse(res.text).message.length > 10,
  });

  it('401 with a message for a wrong key, the password itself, no headers, and a key under another username', async () => {
    const bob = await registerUser(t.app, 'bob');
    const bobKey = (await as(t.app, bob).post('/api/auth/keys', { name: 'b' })).body.key;
    const answers = [
      await auth('alice', 'stk_not-a-key-of-anyone'),
      await auth('alice', 'correct horse battery'),
      await request(t.app).get('/kosync/users/auth'),
      await auth('alice', bobKey),
      await auth('nobody', aliceKey),
    ];
    expect(answers.map((r) => r.status)).toEqual([401, 401, 401, 401, 401]);
    expect(answers.every(refused)).toBe(true);
    expect((await auth('ALICE', aliceKey)).status).toBe(200);
  });

  it('401 for a revoked key, an expired key and a disabled owner', async () => {
    const revoked = (await as(t.app, alice).post('/api/auth/keys', { name: 'old' })).body;
    await as(t.app, alice).del(`/api/auth/keys/${revoked.id}`).expect(204);
    const expiring = (await as(t.app, alice).post('/api/auth/keys', { name: 'short', expires_at: new Date(TEST_NOW.getTime() + 60_000).toISOString() })).body;
    expect((await auth('alice', expiring.key)).status).toBe(200);
    clock.advance(60_000);
    expect(refused(await auth('alice', revoked.key))).toBe(true);
    expect(refused(await auth('alice', expiring.key))).toBe(true);
    await as(t.app, admin).patch(`/api/users/${alice.user.id}`, { disabled: true }).expect(200);
    expect(refused(await auth('alice', aliceKey))).toBe(true);
  });

  it('401 for a key without books:read, with a message KOReader shows', async () => {
    const shelvesOnly = (await as(t.app, alice).post('/api/auth/keys', { name: 'shelves', permissions: ['shelves:read'] })).body.key;
    const res = await auth('alice', shelvesOnly);
    expect([res.status, res.headers['content-type']]).toEqual([401, KOSYNC_TYPE]);
    expect(JSON.parse(res.text)).toEqual({ code: 'permission_denied', message: expect.stringMatching(/may not read books/) });
  });

  it('checks the key before reading the body', async () => {
    const res = await request(t.app).put('/kosync/syncs/progress').set(koreaderHeaders('alice', 'wrong')).type('json').send('{"document":');
    expect(refused(res)).toBe(true);
  });

  it('refuses bad input with a JSON message, never a 500', async () => {
    const send = (body: unknown) => request(t.app).put('/kosync/syncs/progress').set(koreaderHeaders('alice', aliceKey)).send(body as object);
    const cases = [
      await send({ ...push, percentage: 1.5 }),
      await send({ ...push, percentage: '0.5' }),
      await send({ ...push, progress: 42 }),
      await send({ ...push, progress: 'x'.repeat(2049) }),
      await send({ ...push, document: 'd'.repeat(129) }),
      await send({ ...push, device: 'd'.repeat(101) }),
      await send({ ...push, device_id: undefined }),
      await send({ ...push, owner: 'bob' }),
      await send({ ...push, document: { $ne: null } }),
      await request(t.app).get(`/kosync/syncs/progress/${'d'.repeat(129)}`).set(koreaderHeaders('alice', aliceKey)),
    ];
    expect(cases.map((r) => r.status)).toEqual(Array(10).fill(422));
    expect(cases.every((r) => r.headers['content-type'] === KOSYNC_TYPE && JSON.parse(r.text).code === 'validation_failed')).toBe(true);
    const malformed = await request(t.app).put('/kosync/syncs/progress').set(koreaderHeaders('alice', aliceKey)).type('json').send('{"document":');
    expect([malformed.status, JSON.parse(malformed.text).code]).toEqual([400, 'malformed_json']);
    const huge = await send({ ...push, metadata: 'm'.repeat(17 * 1024) });
    expect([huge.status, JSON.parse(huge.text).code]).toEqual([413, 'payload_too_large']);
    const text = await request(t.app).put('/kosync/syncs/progress').set(koreaderHeaders('alice', aliceKey)).type('text').send('hi');
    expect(kosyncRefusal(text)).toEqual({ status: 415, type: KOSYNC_TYPE, code: 'unsupported_media_type', message: true });
    expect([huge, malformed, ...cases].every((r) => r.headers['content-type'] === KOSYNC_TYPE)).toBe(true);
  });

  it('answers unknown paths (404), other methods (405 with Allow) and OPTIONS under /kosync as KOReader reads them', async () => {
    const answers = {
      root: await request(t.app).get('/kosync'),
      unknown: await request(t.app).get('/kosync/users/nope').set(koreaderHeaders('alice', aliceKey)),
      deleteAuth: await request(t.app).delete('/kosync/users/auth').set(koreaderHeaders('alice', aliceKey)),
      postProgress: await request(t.app).post('/kosync/syncs/progress').set(koreaderHeaders('alice', aliceKey)).send(push),
      options: await request(t.app).options('/kosync/syncs/progress'),
    };
    expect(Object.values(answers).map(kosyncRefusal)).toEqual([
      { status: 404, type: KOSYNC_TYPE, code: 'route_not_found', message: true },
      { status: 404, type: KOSYNC_TYPE, code: 'route_not_found', message: true },
      { status: 405, type: KOSYNC_TYPE, code: 'method_not_allowed', message: true },
      { status: 405, type: KOSYNC_TYPE, code: 'method_not_allowed', message: true },
      { status: 405, type: KOSYNC_TYPE, code: 'method_not_allowed', message: true },
    ]);
    expect([answers.deleteAuth.headers['allow'], answers.postProgress.headers['allow']]).toEqual(['GET, HEAD', 'PUT']);
    expect(JSON.parse(answers.root.text).message).toMatch(/followed by \/kosync/);
  });

  it("answers the sign-in throttle's 429 with Retry-After and a message that says how long to wait", async () => {
    let last: request.Response | undefined;
    for (let i = 0; i < 12; i++) last = await auth('alice', `stk_guess_${i}`);
    expect(kosyncRefusal(last!)).toEqual({ status: 429, type: KOSYNC_TYPE, code: 'rate_limited', message: true });
    expect(last!.headers['retry-after']).toMatch(/^\d+$/);
    expect(JSON.parse(last!.text).message).toMatch(/^Too many attempts\. Try again in \d+ minutes?\.$/);
  });

  it('answers a store outage (SQLite closed under it) as KOReader reads it, never as a problem document', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stacks-kosync-outage-'));
    const sqlite = await startTestApp({ DATABASE_URL: '', DATA_DIR: dir }, { clock });
    try {
      const bob = await registerUser(sqlite.app, 'bob');
      const bobKey = (await as(sqlite.app, bob).post('/api/auth/keys', { name: 'kobo' })).body.key;
      await sqlite.container.closeStore();
      const res = await request(sqlite.app).get('/kosync/users/auth').set(koreaderHeaders('bob', bobKey));
      expect(res.status).toBeGreaterThanOrEqual(500);
      expect(res.headers['content-type']).toBe(KOSYNC_TYPE);
      expect(JSON.parse(res.text)).toEqual({ code: expect.any(String), message: expect.stringMatching(/Try again later\.$/) });
    } finally {
      await sqlite.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("accepts KOReader's optional fields and keeps the last-used time of the key", async () => {
    const res = await request(t.app).put('/kosync/syncs/progress').set(koreaderHeaders('alice', aliceKey))
      .send({ ...push, metadata: { title: 'Dune' }, identifiers: [{ type: 'isbn', value: '9780441013593' }] });
    expect(res.status).toBe(200);
    const keys = t.container.di.resolve<ApiKeyRepository>(PORTS.ApiKeyRepository);
    const listed = await keys.listByOwner(alice.user.id, { page: 1, pageSize: 10 });
    expect(listed.items[0]?.lastUsedAt).toEqual(TEST_NOW);
  });

  it('answers the request budget\'s 429 as KOReader reads it: its media type, a message and Retry-After', async () => {
    const limited = await startTestApp({ RATE_LIMIT_PER_MINUTE: '3' }, { clock });
    try {
      const answers = [];
      for (let i = 0; i < 5; i++) answers.push(await request(limited.app).get('/kosync/users/auth').set(koreaderHeaders('alice', 'stk_x')));
      const last = answers.at(-1)!;
      expect(last.status).toBe(429);
      expect(last.headers['content-type']).toBe(KOSYNC_TYPE);
      expect(JSON.parse(last.text).message).toMatch(/^Too many attempts\./);
      expect(last.headers['retry-after']).toMatch(/^\d+$/);
      expect(JSON.parse(last.text)).toMatchObject({ code: 'rate_limited', message: expect.any(String) });
      const api = await request(limited.app).get('/api/books');
      expect([api.status, api.headers['content-type']]).toEqual([429, 'application/problem+json; charset=utf-8']);
    } finally {
      await limited.close();
    }
  });
});
