import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BookDigestRepository, BookRepository, SyncDocumentRepository } from '../../src/application/ports.js';
import { PORTS } from '../../src/bootstrap/tokens.js';
import { as } from '../support/acting-as.js';
import { aBook } from '../support/builders.js';
import { FakeClock, TEST_NOW } from '../support/clock.js';
import { decidePull, koreaderHeaders, type ReaderState } from '../support/koreader.js';
import { EMBEDDED_STORES, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';

// KOReader's requests and decision rule, with the plugin files they come from: test/support/koreader.ts.
const BOOK_DIGEST = '5f0b6ea7a5f1c2d3e4f5a6b7c8d9e0f1';
const NAME_DIGEST = '0a1b2c3d4e5f60718293a4b5c6d7e8f9';
const LOOSE_DIGEST = 'c0ffee00c0ffee00c0ffee00c0ffee00';
const SECONDS = (d: Date) => Math.floor(d.getTime() / 1000);

describe.each(EMBEDDED_STORES)('KOReader sync replay ($name)', ({ env }) => {
  let dir: string;
  let t: TestApp;
  let clock: FakeClock;
  let alice: Session;
  let bob: Session;
  let aliceKey: string;
  let bobKey: string;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stacks-kosync-'));
    clock = new FakeClock();
    t = await startTestApp(env(dir), { clock });
    await registerUser(t.app, 'admin');
    alice = await registerUser(t.app, 'alice');
    bob = await registerUser(t.app, 'bob');
    aliceKey = (await as(t.app, alice).post('/api/auth/keys', { name: 'kobo' })).body.key;
    bobKey = (await as(t.app, bob).post('/api/auth/keys', { name: 'phone' })).body.key;
    await t.container.di.resolve<BookRepository>(PORTS.BookRepository).create(aBook({ id: 'dune', title: 'Dune' }));
    await t.container.di.resolve<BookDigestRepository>(PORTS.BookDigestRepository).put('dune', { partialMd5: BOOK_DIGEST, fileNameMd5: NAME_DIGEST });
  });
  afterEach(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const kobo = (): ReaderState => ({ model: 'Kobo_spaBW', deviceId: '3D1F0E6C2B8A4F7E9D5C1B0A6E4F2D8C', progress: '/body/DocFragment[2]/body/p[1]/text().0', percentage: 0.05, lastPageTurn: SECONDS(TEST_NOW) - 600 });
  const phone = (): ReaderState => ({ model: 'Android', deviceId: '9A8B7C6D5E4F30211203F4E5D6C7B8A9', progress: '/body/DocFragment[1]/body/p[1]/text().0', percentage: 0.01, lastPageTurn: SECONDS(TEST_NOW) - 3600 });

  const push = (user: string, key: string, document: string, reader: ReaderState) =>
    request(t.app).put('/kosync/syncs/progress').set(koreaderHeaders(user, key))
      .send({ document, progress: reader.progress, percentage: reader.percentage, device: reader.model, device_id: reader.deviceId });
  const pull = (user: string, key: string, document: string) => request(t.app).get(`/kosync/syncs/progress/${document}`).set(koreaderHeaders(user, key));

  it('refuses KOReader registration with 402 and a message it shows; signs in with an API key as the password', async () => {
    const created = await request(t.app).post('/kosync/users/create').set({ accept: 'application/vnd.koreader.v1+json' })
      .send({ username: 'carol', password: koreaderHeaders('carol', 'secret')['x-auth-key'] });
    expect(created.status).toBe(402);
    expect(JSON.parse(created.text).message).toMatch(/API key as the password/);
    const auth = await request(t.app).get('/kosync/users/auth').set(koreaderHeaders('alice', aliceKey));
    expect(auth.status).toBe(200);
    expect(auth.headers['content-type']).toBe('application/json');
    expect(JSON.parse(auth.text)).toEqual({ authorized: 'OK' });
    expect(auth.headers['cache-control']).toBe('no-store');
  });

  it('moves the second device to the newest position, in both directions, for a Stacks book', async () => {
    const onKobo = { ...kobo(), progress: '/body/DocFragment[14]/body/p[22]/text().17', percentage: 0.4375 };
    const pushed = await push('alice', aliceKey, BOOK_DIGEST, onKobo);
    expect(pushed.status).toBe(200);
    expect(JSON.parse(pushed.text)).toEqual({ document: BOOK_DIGEST, timestamp: SECONDS(TEST_NOW) });

    const onPhone = phone();
    const pulled = await pull('alice', aliceKey, BOOK_DIGEST);
    const body = JSON.parse(pulled.text);
    expect(body).toEqual({ document: BOOK_DIGEST, percentage: 0.4375, progress: onKobo.progress, device: 'Kobo_spaBW', device_id: onKobo.deviceId, timestamp: SECONDS(TEST_NOW) });
    expect(decidePull(onPhone, pulled.status === 200, body, true)).toEqual({ kind: 'go-to', progress: onKobo.progress });
    expect(decidePull(onPhone, pulled.status === 200, body, false)).toEqual({ kind: 'prompt-go-to', progress: onKobo.progress });
    expect(decidePull(onKobo, true, body, false)).toEqual({ kind: 'from-this-device' });

    clock.advance(3_600_000);
    const further = { ...onPhone, progress: '/body/DocFragment[20]/body/p[3]/text().4', percentage: 0.6012, lastPageTurn: SECONDS(clock.now()) };
    expect((await push('alice', aliceKey, BOOK_DIGEST, further)).status).toBe(200);
    const back = JSON.parse((await pull('alice', aliceKey, BOOK_DIGEST)).text);
    expect(back).toMatchObject({ progress: further.progress, percentage: 0.6012, device: 'Android', timestamp: SECONDS(clock.now()) });
    expect(decidePull(onKobo, true, back, false)).toEqual({ kind: 'prompt-go-to', progress: further.progress });

    const rest = await as(t.app, alice).get('/api/books/dune/progress');
    expect(rest.body).toEqual({
      book_id: 'dune', status: 'reading', percentage: 0.6012, locator: further.progress, device: 'Android', device_id: further.deviceId,
      updated_at: clock.now().toISOString(),
    });
  });

  it('finds the book by its file-name digest too, and a REST update is what KOReader pulls next', async () => {
    clock.advance(60_000);
    const put = await as(t.app, alice).put('/api/books/dune/progress', { percentage: 0.75, locator: '/body/DocFragment[30]/body/p[2]/text().0', device: 'web', device_id: 'browser' });
    expect(put.status).toBe(200);
    const pulled = await pull('alice', aliceKey, NAME_DIGEST);
    const body = JSON.parse(pulled.text);
    expect(body).toEqual({ document: NAME_DIGEST, percentage: 0.75, progress: '/body/DocFragment[30]/body/p[2]/text().0', device: 'web', device_id: 'browser', timestamp: SECONDS(clock.now()) });
    expect(decidePull(kobo(), true, body, false)).toEqual({ kind: 'prompt-go-to', progress: body.progress });
    expect(JSON.parse((await pull('bob', bobKey, BOOK_DIGEST)).text)).toEqual({});
  });

  it('answers {} for a position KOReader cannot go to (a REST percentage without a locator) and for nothing pushed', async () => {
    expect(JSON.parse((await pull('alice', aliceKey, BOOK_DIGEST)).text)).toEqual({});
    await as(t.app, alice).put('/api/books/dune/progress', { percentage: 0.5 }).expect(200);
    const empty = await pull('alice', aliceKey, BOOK_DIGEST);
    expect(empty.status).toBe(200);
    expect(decidePull(kobo(), true, JSON.parse(empty.text), true)).toEqual({ kind: 'no-progress' });
  });

  it("syncs a document that is no Stacks book between one user's devices, and to no one else", async () => {
    const onKobo = { ...kobo(), progress: '57', percentage: 0.2231 };
    expect((await push('alice', aliceKey, LOOSE_DIGEST, onKobo)).status).toBe(200);
    const mine = JSON.parse((await pull('alice', aliceKey, LOOSE_DIGEST)).text);
    expect(mine).toEqual({ document: LOOSE_DIGEST, percentage: 0.2231, progress: '57', device: 'Kobo_spaBW', device_id: onKobo.deviceId, timestamp: SECONDS(TEST_NOW) });
    expect(decidePull(phone(), true, mine, true)).toEqual({ kind: 'go-to', progress: '57' });
    expect(JSON.parse((await pull('bob', bobKey, LOOSE_DIGEST)).text)).toEqual({});
    expect((await as(t.app, alice).get('/api/books/dune/progress')).body.status).toBe('unread');
  });

  it("deletes a user's KOReader positions with the account", async () => {
    expect((await push('bob', bobKey, LOOSE_DIGEST, kobo())).status).toBe(200);
    const adminSession = await request(t.app).post('/api/auth/login').send({ username: 'admin', password: 'correct horse battery' });
    await request(t.app).delete(`/api/users/${bob.user.id}`).set({ Authorization: `Bearer ${adminSession.body.access_token}` }).expect(204);
    const documents = t.container.di.resolve<SyncDocumentRepository>(PORTS.SyncDocumentRepository);
    expect(await documents.get(bob.user.id, LOOSE_DIGEST)).toBeNull();
  });

  it('is not part of /openapi.json', async () => {
    const paths = Object.keys((await request(t.app).get('/openapi.json')).body.paths as object);
    expect(paths.filter((p) => p.startsWith('/kosync'))).toEqual([]);
  });
});
