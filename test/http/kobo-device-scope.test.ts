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
  let alice: Session;
  let limited: KoboDeviceUrl;
  let everything: KoboDeviceUrl;
  let inside: string;
  let outside: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stacks-kobo-scope-'));
    t = await startTestApp(await env(dir));
    await registerUser(t.app, 'admin');
    alice = await registerUser(t.app, 'alice');
    inside = (await upload(t.app, alice, await buildEpub({ title: 'On the shelf' }), 'inside.epub').expect(201)).body.id;
    outside = (await upload(t.app, alice, await buildEpub({ title: 'Off every shelf' }), 'outside.epub').expect(201)).body.id;
    const shelf = (await as(t.app, alice).post('/api/shelves', { name: 'Night', book_ids: [inside] })).body.id as string;
    limited = await addKobo(t.app, alice, { name: 'Night Kobo', shelf_ids: [shelf] });
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
});
