import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BookRepository } from '../../src/application/ports.js';
import { PORTS } from '../../src/bootstrap/tokens.js';
import { as } from '../support/acting-as.js';
import { aBook } from '../support/builders.js';
import { FakeClock } from '../support/clock.js';
import { addKobo, itemsByKind, koboCall, syncRound } from '../support/kobo.js';
import { EMBEDDED_STORES, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';

describe.each(EMBEDDED_STORES)('a Kobo limited to shelves ($name)', ({ env }) => {
  let dir: string;
  let t: TestApp;
  let clock: FakeClock;
  let alice: Session;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stacks-kobo-shelves-'));
    clock = new FakeClock();
    t = await startTestApp(env(dir), { clock });
    alice = await registerUser(t.app, 'alice');
    const books = t.container.di.resolve<BookRepository>(PORTS.BookRepository);
    for (const id of ['s1', 's2', 's3', 'out']) await books.create(aBook({ id, format: 'epub' }));
  });
  afterEach(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gets only the chosen shelves\' books; a book added to one arrives, a book taken off every chosen shelf is removed', async () => {
    const night = (await as(t.app, alice).post('/api/shelves', { name: 'Night', book_ids: ['s1', 's2'] })).body.id as string;
    const day = (await as(t.app, alice).post('/api/shelves', { name: 'Day', book_ids: ['s2'] })).body.id as string;
    const device = await addKobo(t.app, alice, { name: 'Night Kobo', shelf_ids: [night, day] });
    const first = await syncRound(t.app, device);
    expect(itemsByKind(first.items).filter(([k]) => k === 'NewEntitlement').map(([, id]) => id).sort()).toEqual(['s1', 's2', 's2']);
    expect(itemsByKind(first.items).filter(([k]) => k === 'NewTag').map(([, id]) => id).sort()).toEqual([day, night].sort());

    clock.advance(60_000);
    await as(t.app, alice).put(`/api/shelves/${night}/books/s3`).expect(204);
    let round = await syncRound(t.app, device, first.token);
    expect(itemsByKind(round.items).filter(([k]) => k.endsWith('Entitlement'))).toEqual([['NewEntitlement', 's3']]);

    clock.advance(60_000);
    await as(t.app, alice).del(`/api/shelves/${night}/books/s2`).expect(204);
    round = await syncRound(t.app, device, round.token);
    expect(itemsByKind(round.items).filter(([k]) => k.endsWith('Entitlement'))).toEqual([]);
    await as(t.app, alice).del(`/api/shelves/${night}/books/s1`).expect(204);
    round = await syncRound(t.app, device, round.token);
    expect(itemsByKind(round.items).filter(([k]) => k.endsWith('Entitlement'))).toEqual([['ChangedEntitlement', 's1']]);
    expect(round.items.find((i) => i.ChangedEntitlement)!.ChangedEntitlement.BookEntitlement.IsRemoved).toBe(true);

    clock.advance(60_000);
    await as(t.app, alice).patch('/api/books/out', { title: 'Not on a chosen shelf' });
    await as(t.app, alice).del(`/api/shelves/${day}`).expect(204);
    round = await syncRound(t.app, device, round.token);
    expect(itemsByKind(round.items)).toEqual(expect.arrayContaining([['ChangedEntitlement', 's2'], ['DeletedTag', day]]));
    expect(itemsByKind(round.items).map(([, id]) => id)).not.toContain('out');
  });

  it("removes another user's shelf books when the shelf is made private, and sends them as new when it is public again", async () => {
    const shared = (await as(t.app, alice).post('/api/shelves', { name: 'Shared', book_ids: ['s1', 's2'], is_public: true })).body.id as string;
    const bob = await registerUser(t.app, 'bob');
    expect(bob.user.roles).not.toContain('admin'); // an admin sees private shelves too
    const device = await addKobo(t.app, bob, { name: "Bob's Kobo", shelf_ids: [shared] });
    const first = await syncRound(t.app, device);
    expect(itemsByKind(first.items).filter(([k]) => k.endsWith('Entitlement')).sort()).toEqual([['NewEntitlement', 's1'], ['NewEntitlement', 's2']]);

    clock.advance(60_000);
    await as(t.app, alice).patch(`/api/shelves/${shared}`, { is_public: false }).expect(200);
    let round = await syncRound(t.app, device, first.token);
    const removed = round.items.filter((i) => i.ChangedEntitlement?.BookEntitlement?.IsRemoved).map((i) => i.ChangedEntitlement.BookEntitlement.Id);
    expect(removed.sort()).toEqual(['s1', 's2']);
    await koboCall(t.app, device, 'get', '/v1/library/s1/metadata').expect(404);

    clock.advance(60_000);
    await as(t.app, alice).patch(`/api/shelves/${shared}`, { name: 'Shared again' }).expect(200);
    round = await syncRound(t.app, device, round.token);
    expect(itemsByKind(round.items).filter(([k]) => k.endsWith('Entitlement'))).toEqual([]);
    await as(t.app, alice).patch(`/api/shelves/${shared}`, { is_public: true }).expect(200);
    round = await syncRound(t.app, device, round.token);
    expect(itemsByKind(round.items).filter(([k]) => k.endsWith('Entitlement')).sort()).toEqual([['NewEntitlement', 's1'], ['NewEntitlement', 's2']]);
  });

  it('turns collections made on the Kobo into shelves: create with items, rename, add and remove items, delete', async () => {
    const device = await addKobo(t.app, alice);
    const created = await koboCall(t.app, device, 'post', '/v1/library/tags')
      .send({ Name: 'On the Kobo', Items: [{ Type: 'ProductRevisionTagItem', RevisionId: 's1' }, { Type: 'ProductRevisionTagItem', RevisionId: 'unknown-book' }] });
    expect(created.status).toBe(201);
    const id = created.body as string;
    expect((await as(t.app, alice).get(`/api/shelves/${id}`)).body).toMatchObject({ name: 'On the Kobo', book_ids: ['s1'] });
    const again = await koboCall(t.app, device, 'post', '/v1/library/tags').send({ Name: 'on the kobo', Items: [{ Type: 'ProductRevisionTagItem', RevisionId: 's2' }] });
    expect(again.body).toBe(id);
    expect((await koboCall(t.app, device, 'put', `/v1/library/tags/${id}`).send({ Name: 'Renamed' })).status).toBe(200);
    expect((await koboCall(t.app, device, 'post', `/v1/library/tags/${id}/items`).send({ Items: [{ Type: 'ProductRevisionTagItem', RevisionId: 's3' }] })).status).toBe(201);
    expect((await koboCall(t.app, device, 'post', `/v1/library/tags/${id}/items/delete`).send({ Items: [{ Type: 'ProductRevisionTagItem', RevisionId: 's1' }] })).status).toBe(200);
    expect((await as(t.app, alice).get(`/api/shelves/${id}`)).body).toMatchObject({ name: 'Renamed', book_ids: ['s2', 's3'] });
    expect((await koboCall(t.app, device, 'delete', `/v1/library/tags/${id}`)).status).toBe(200);
    expect((await as(t.app, alice).get(`/api/shelves/${id}`)).status).toBe(404);
  });
});

describe('KOBO_STORE_FORWARDING', () => {
  let store: Server;
  let seen: Array<{ method: string; url: string; headers: IncomingMessage['headers']; body: string }>;
  let storeUrl: string;

  beforeEach(async () => {
    seen = [];
    store = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
        res.setHeader('content-type', 'application/json');
        if (req.url === '/v1/library/sync') {
          res.setHeader('x-kobo-synctoken', 'store.token');
          res.end(JSON.stringify([{ NewEntitlement: { BookEntitlement: { Id: 'store-book' } } }]));
        } else if (req.url?.startsWith('/v1/initialization')) res.end(JSON.stringify({ Resources: { store_only: 'yes', library_sync: 'https://storeapi.kobo.com/v1/library/sync' } }));
        else res.end(JSON.stringify({ from: 'store', path: req.url }));
      });
    });
    await new Promise<void>((resolve) => store.listen(0, '127.0.0.1', resolve));
    storeUrl = `http://127.0.0.1:${(store.address() as { port: number }).port}`;
  });
  afterEach(() => new Promise<void>((resolve) => store.close(() => resolve())));

  it('off (the default): nothing reaches the store; on: unknown calls, initialization and sync go to it, never the sync token or the secret', async () => {
    const off = await startTestApp({ KOBO_STORE_URL: storeUrl });
    try {
      const session = await registerUser(off.app, 'offuser');
      const device = await addKobo(off.app, session);
      expect((await koboCall(off.app, device, 'get', '/v1/user/wishlist')).body).toEqual({});
      await syncRound(off.app, device);
      expect(seen).toEqual([]);
    } finally {
      await off.close();
    }
    const on = await startTestApp({ KOBO_STORE_URL: storeUrl, KOBO_STORE_FORWARDING: 'true' });
    try {
      const session = await registerUser(on.app, 'onuser');
      const device = await addKobo(on.app, session);
      const secret = device.base.split('/').pop()!;
      const wishlist = await koboCall(on.app, device, 'post', '/v1/user/wishlist?PageSize=10').set('authorization', 'Bearer kobo-store-token').send({ x: 1 });
      expect(wishlist.body).toEqual({ from: 'store', path: '/v1/user/wishlist?PageSize=10' });
      const init = await koboCall(on.app, device, 'get', '/v1/initialization');
      expect(init.body.Resources).toMatchObject({ store_only: 'yes', library_sync: expect.stringContaining(`${device.base}/v1/library/sync`) });
      const first = await koboCall(on.app, device, 'get', '/v1/library/sync');
      expect(itemsByKind(first.body)).toEqual([['NewEntitlement', 'store-book']]);
      await koboCall(on.app, device, 'get', '/v1/library/sync').set('x-kobo-synctoken', first.headers['x-kobo-synctoken'] as string);
      const forwarded = seen.find((s) => s.url === '/v1/user/wishlist?PageSize=10')!;
      expect(forwarded).toMatchObject({ method: 'POST', body: '{"x":1}' });
      expect(forwarded.headers.authorization).toBe('Bearer kobo-store-token');
      expect(forwarded.headers['x-kobo-userkey']).toBeDefined();
      expect(seen.filter((s) => s.url === '/v1/library/sync').map((s) => s.headers['x-kobo-synctoken'])).toEqual([undefined, 'store.token']);
      expect(JSON.stringify(seen)).not.toContain(secret);
    } finally {
      await on.close();
    }
  });
});
