import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as } from '../support/acting-as.js';
import { upload } from '../support/books.js';
import { buildEpub } from '../support/fixtures/index.js';
import { addKobo, koboCall, type KoboDeviceUrl } from '../support/kobo.js';
import { mongoTestServer } from '../support/mongo-server.js';
import { registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';

let databases = 0;

/** memory, SQLite, and the MongoDB test server (the CongoDB stand-in here). */
const STORES = [
  { name: 'memory', env: async () => ({}) },
  { name: 'sqlite', env: async (dir: string) => ({ DATABASE_URL: '', DATA_DIR: dir }) },
  { name: 'mongo', env: async (dir: string) => ({ DATABASE_URL: (await mongoTestServer()).database(`stacks_kobo_scope_${process.pid}_${++databases}`), DATA_DIR: dir }) },
];

const STATE = (id: string) => ({
  ReadingStates: [{
    EntitlementId: id, LastModified: '2026-11-22T10:05:00Z',
    StatusInfo: { LastModified: '2026-11-22T10:05:00Z', Status: 'Reading' },
    CurrentBookmark: { LastModified: '2026-11-22T10:05:00Z', ProgressPercent: 37, Location: { Value: 'kobo.12.4', Type: 'KoboSpan', Source: 'OEBPS/text/ch1.xhtml' } },
  }],
});

describe.each(STORES)('a Kobo limited to shelves opens only their books ($name)', ({ env }) => {
  let dir: string;
  let t: TestApp;
  let admin: Session;
  let alice: Session;
  let limited: KoboDeviceUrl;
  let everything: KoboDeviceUrl;
  let inside: string;
  let outside: string;
  let night: string;
  let other: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stacks-kobo-scope-'));
    t = await startTestApp(await env(dir));
    admin = await registerUser(t.app, 'admin');
    alice = await registerUser(t.app, 'alice');
    inside = (await upload(t.app, alice, await buildEpub({ title: 'On the shelf' }), 'inside.epub').expect(201)).body.id;
    outside = (await upload(t.app, alice, await buildEpub({ title: 'Off every shelf' }), 'outside.epub').expect(201)).body.id;
    night = (await as(t.app, alice).post('/api/shelves', { name: 'Night', book_ids: [inside] })).body.id as string;
    other = (await as(t.app, alice).post('/api/shelves', { name: 'Day', book_ids: [outside] })).body.id as string;
    limited = await addKobo(t.app, alice, { name: 'Night Kobo', shelf_ids: [night] });
    everything = await addKobo(t.app, alice, { name: 'Whole library' });
  }, 120_000);
  afterAll(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers metadata, state (GET and PUT), the file and the cover of a book off its shelves as for an unknown book: 404, the state left as it was', async () => {
    const unknown = await koboCall(t.app, limited, 'get', '/v1/books/no-such-book/file');
    expect(unknown.status).toBe(404);
    for (const answer of [
      await koboCall(t.app, limited, 'get', `/v1/books/${outside}/file`),
      await koboCall(t.app, limited, 'get', `/v1/library/${outside}/metadata`),
      await koboCall(t.app, limited, 'get', `/v1/library/${outside}/state`),
      await koboCall(t.app, limited, 'put', `/v1/library/${outside}/state`).send(STATE(outside)),
      await koboCall(t.app, limited, 'get', `/v1/books/${outside}/thumbnail/355/530/false/image.jpg`),
    ]) {
      expect(answer.status).toBe(404);
      expect(answer.body.code).toBe(unknown.body.code);
      expect(answer.text).not.toContain('Off every shelf');
    }
    expect((await as(t.app, alice).get(`/api/books/${outside}/progress`)).body).toMatchObject({ status: 'unread', percentage: 0 });
  });

  it('still serves the books on its shelves, and a device not limited to shelves every book', async () => {
    expect((await koboCall(t.app, limited, 'get', `/v1/library/${inside}/metadata`)).body[0]).toMatchObject({ EntitlementId: inside, Title: 'On the shelf' });
    expect((await koboCall(t.app, limited, 'put', `/v1/library/${inside}/state`).send(STATE(inside))).status).toBe(200);
    expect((await koboCall(t.app, limited, 'get', `/v1/library/${inside}/state`)).body[0].CurrentBookmark).toMatchObject({ ProgressPercent: 37 });
    expect((await koboCall(t.app, limited, 'get', `/v1/books/${inside}/file`)).status).toBe(200);
    expect((await koboCall(t.app, limited, 'get', `/v1/books/${inside}/thumbnail/355/530/false/image.jpg`)).headers['content-type']).toBe('image/jpeg');
    expect((await koboCall(t.app, everything, 'get', `/v1/books/${outside}/thumbnail/355/530/false/image.jpg`)).headers['content-type']).toBe('image/jpeg');
    expect((await koboCall(t.app, everything, 'get', `/v1/library/${outside}/metadata`)).body[0]).toMatchObject({ EntitlementId: outside, Title: 'Off every shelf' });
    expect((await koboCall(t.app, everything, 'get', `/v1/library/${outside}/state`)).status).toBe(200);
    expect((await koboCall(t.app, everything, 'put', `/v1/library/${outside}/state`).send(STATE(outside))).status).toBe(200);
    expect((await koboCall(t.app, everything, 'get', `/v1/books/${outside}/file`)).status).toBe(200);
    expect((await as(t.app, alice).get(`/api/books/${outside}/progress`)).body).toMatchObject({ status: 'reading', percentage: 0.37 });
  });

  const item = (id: string) => ({ Type: 'ProductRevisionTagItem', RevisionId: id });
  /**
   * `count` requests, `width` at a time: a device's requests in flight each hold one of its 10 throttle
   * slots until their check ends (released then), so more than 10 at once from one Kobo are 429 on a store
   * slow enough for them to overlap (noticed by this test on the MongoDB stand-in; left as it is).
   */
  const inWaves = async <T>(count: number, width: number, send: (i: number) => Promise<T>): Promise<T[]> => {
    const all: T[] = [];
    for (let i = 0; i < count; i += width) all.push(...await Promise.all(Array.from({ length: Math.min(width, count - i) }, (_, j) => send(i + j))));
    return all;
  };
  const shelfBooks = async (id: string) => ((await as(t.app, alice).get(`/api/shelves/${id}/books`)).body.items as { id: string }[]).map((b) => b.id);
  const shelfNames = async () => ((await as(t.app, alice).get('/api/shelves')).body.items as { name: string }[]).map((s) => s.name).sort();

  it('keeps its collections to its own shelves and their books: 100 adds of a book off them, 8 at a time, add nothing, and it still cannot download it (attack 4, F2)', async () => {
    const adds = await inWaves(100, 8, () => koboCall(t.app, limited, 'post', `/v1/library/tags/${night}/items`).send({ Items: [item(outside)] }));
    expect(adds.map((r) => r.status), JSON.stringify(adds.find((r) => r.status !== 201)?.body)).toEqual(Array(100).fill(201));
    expect(await shelfBooks(night)).toEqual([inside]);
    expect((await koboCall(t.app, limited, 'get', `/v1/books/${outside}/file`)).status).toBe(404);
    // Its own shelf by name: reused, and the book off its shelves ignored as an unknown one is.
    const again = await koboCall(t.app, limited, 'post', '/v1/library/tags').send({ Name: 'Night', Items: [item(outside), item(inside)] });
    expect(again.status).toBe(201);
    expect(again.body).toBe(night);
    expect(await shelfBooks(night)).toEqual([inside]);
  });

  it('answers every change to a shelf not its own as for an unknown shelf, and refuses a collection of a new name: nothing changes (attack 4, F2)', async () => {
    const unknown = await koboCall(t.app, limited, 'put', '/v1/library/tags/no-such-shelf').send({ Name: 'x' });
    expect(unknown.status).toBe(404);
    for (const answer of [
      await koboCall(t.app, limited, 'put', `/v1/library/tags/${other}`).send({ Name: 'Renamed by the Kobo' }),
      await koboCall(t.app, limited, 'post', `/v1/library/tags/${other}/items`).send({ Items: [item(inside)] }),
      await koboCall(t.app, limited, 'post', `/v1/library/tags/${other}/items/delete`).send({ Items: [item(outside)] }),
      await koboCall(t.app, limited, 'delete', `/v1/library/tags/${other}`),
    ]) {
      expect(answer.status).toBe(404);
      expect(answer.body.code).toBe(unknown.body.code);
    }
    const before = await shelfNames();
    const made = await inWaves(24, 8, (i) => koboCall(t.app, limited, 'post', '/v1/library/tags').send({ Name: i % 2 ? 'Day' : 'New on the Kobo', Items: [item(outside)] }));
    expect(made.map((r) => r.status), JSON.stringify(made.find((r) => r.status !== 403)?.body)).toEqual(Array(24).fill(403));
    expect(await shelfNames()).toEqual(before);
    expect(await shelfBooks(other)).toEqual([outside]);
    expect(before).toContain('Day');
  });

  it('answers "remove from library" of a book it does not get as for an unknown book, archiving nothing (attack 4, F3)', async () => {
    const unknown = await koboCall(t.app, limited, 'delete', '/v1/library/no-such-book');
    expect(unknown.status).toBe(404);
    const off = await koboCall(t.app, limited, 'delete', `/v1/library/${outside}`);
    expect(off.status).toBe(404);
    expect(off.body.code).toBe(unknown.body.code);
    // Not archived on it: were it put on its shelf, the device would get it.
    expect((await koboCall(t.app, everything, 'delete', `/v1/library/${inside}`)).status).toBe(204);
    expect((await koboCall(t.app, limited, 'delete', `/v1/library/${inside}`)).status).toBe(204);
  });

  it('refuses its own shelf by name to an owner who may no longer change shelves (reader): 403, even with no items (runs last: it changes alice\'s roles)', async () => {
    expect((await as(t.app, admin).patch(`/api/users/${alice.user.id}`, { roles: ['reader'] })).status).toBe(200);
    const answer = await koboCall(t.app, limited, 'post', '/v1/library/tags').send({ Name: 'Night', Items: [] });
    expect(answer.status).toBe(403);
    expect(answer.body.code).toBe('permission_denied');
    expect(((await as(t.app, admin).get(`/api/shelves/${night}/books`)).body.items as { id: string }[]).map((b) => b.id)).toEqual([inside]);
  });
});
