import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upload } from '../support/books.js';
import { koreaderHeaders } from '../support/koreader.js';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';

/**
 * Text rules (API.md, "Authority, timing and input rules"): text fields of JSON bodies and queries
 * refuse NUL, C0 controls other than tab, LF and CR, DEL and C1 (422 validation_failed); names also
 * refuse tab and line breaks. Nothing refused is stored.
 */
const FORBIDDEN = ['\u0000', '\u0001', '\u001b[2J', '\u007f', '\u0085', '\u009b2J', '\u001b]52;c;ZXZpbA==\u0007'];
const NAME_ONLY = ['\t', '\n', '\r', '\u2028'];
/** Halves of surrogate pairs alone, as a JSON body can carry them (`"\ud800"`); a URL or a multipart part cannot. */
const UNPAIRED = ['\ud800', 'x\udc00y', 'end\udbff', '\udfff\ud800'];

let t: TestApp;
let alice: Session;
let bookId: string;
let shelfId: string;
let key: string;
beforeAll(async () => {
  t = await startTestApp();
  alice = await registerUser(t.app, 'alice');
  bookId = (await upload(t.app, alice, Buffer.from('Rules\n'), 'Rules - Book.txt')).body.id;
  shelfId = (await request(t.app).post('/api/shelves').set(bearer(alice.token)).send({ name: 'Mine' })).body.id;
  key = (await request(t.app).post('/api/auth/keys').set(bearer(alice.token)).send({ name: 'kobo' })).body.key;
});
afterAll(() => t.close());

const as = () => ({
  post: (path: string, body: object) => request(t.app).post(path).set(bearer(alice.token)).send(body),
  patch: (path: string, body: object) => request(t.app).patch(path).set(bearer(alice.token)).send(body),
  put: (path: string, body: object) => request(t.app).put(path).set(bearer(alice.token)).send(body),
  get: (path: string) => request(t.app).get(path).set(bearer(alice.token)),
});

function refused(res: request.Response, field: string, location = 'body'): [number, string, boolean] {
  const named = (res.body.errors as { field: string; location: string }[] | undefined)?.some((e) => e.field === field && e.location === location) ?? false;
  return [res.status, res.body.code, named];
}

/** What a refusal could have changed: alice's shelves, keys, books and progress. */
async function state(): Promise<string> {
  const parts = await Promise.all(['/api/shelves?owner=me', '/api/auth/keys', `/api/books/${bookId}`, `/api/books/${bookId}/progress`].map((p) => as().get(p)));
  return JSON.stringify(parts.map((r) => r.body));
}

describe('text fields refuse control characters', () => {
  it('in every kind of JSON text field: 422 validation_failed naming the field, nothing stored', async () => {
    const before = await state();
    for (const c of [...FORBIDDEN, ...UNPAIRED]) {
      const cases: [request.Test, string][] = [
        [as().post('/api/shelves', { name: `Shelf ${c}` }), 'name'],
        [as().post('/api/shelves', { name: 'Fine', description: `about ${c}` }), 'description'],
        [as().patch(`/api/shelves/${shelfId}`, { name: `Renamed${c}` }), 'name'],
        [as().post('/api/auth/keys', { name: `key${c}` }), 'name'],
        [as().patch(`/api/books/${bookId}`, { title: `Title ${c}` }), 'title'],
        [as().patch(`/api/books/${bookId}`, { authors: ['Ann', `B${c}`] }), 'authors.1'],
        [as().put(`/api/books/${bookId}/progress`, { percentage: 0.5, locator: `/p[1]${c}` }), 'locator'],
        [as().put(`/api/books/${bookId}/progress`, { percentage: 0.5, device: `Kobo${c}` }), 'device'],
        [request(t.app).post('/api/auth/login').send({ username: `alice${c}`, password: 'correct horse battery' }), 'username'],
        [request(t.app).post('/api/auth/login').send({ username: 'alice', password: `correct horse ${c}` }), 'password'],
      ];
      for (const [sent, field] of cases) {
        const res = await sent;
        expect(refused(res, field), `${JSON.stringify(c)} in ${field}`).toEqual([422, 'validation_failed', true]);
      }
    }
    expect(await state()).toBe(before);
  });

  it('in queries: 422 naming the query field', async () => {
    for (const c of FORBIDDEN) {
      for (const field of ['q', 'author', 'tag']) {
        const res = await as().get(`/api/books?${field}=${encodeURIComponent(`x${c}`)}`);
        expect(refused(res, field, 'query'), `${JSON.stringify(c)} in ${field}`).toEqual([422, 'validation_failed', true]);
      }
    }
  });

  it('keeps tab, line feed and carriage return in free text, and refuses them in names', async () => {
    const paired = await as().post('/api/shelves', { name: 'Night 😀 \ud83d\ude00', description: '𝄞' });
    expect([paired.status, paired.body.name, paired.body.description]).toEqual([201, 'Night 😀 😀', '𝄞']);
    const described = await as().post('/api/shelves', { name: 'Multi-line', description: 'one\ttab\nline\r\nend' });
    expect(described.status).toBe(201);
    expect(described.body.description).toBe('one\ttab\nline\r\nend');
    expect((await as().patch(`/api/books/${bookId}`, { description: 'para one\n\npara two' })).status).toBe(200);
    const before = await state();
    for (const c of NAME_ONLY) {
      for (const [sent, field] of [
        [as().post('/api/shelves', { name: `Two${c}parts` }), 'name'],
        [as().post('/api/auth/keys', { name: `key${c}x` }), 'name'],
        [as().put(`/api/books/${bookId}/progress`, { percentage: 0.5, device: `Ko${c}bo` }), 'device'],
        [as().put(`/api/books/${bookId}/progress`, { percentage: 0.5, device_id: `id${c}2` }), 'device_id'],
      ] as const) {
        expect(refused(await sent, field), `${JSON.stringify(c)} in ${field}`).toEqual([422, 'validation_failed', true]);
      }
    }
    expect(await state()).toBe(before);
  });

  it('on /kosync: document, progress, device and device_id', async () => {
    const push = (fields: object) => request(t.app).put('/kosync/syncs/progress').set(koreaderHeaders('alice', key))
      .send({ document: 'a'.repeat(32), progress: '/body/p[2]', percentage: 0.3, device: 'Kobo', device_id: 'k1', ...fields });
    for (const c of [...FORBIDDEN, ...UNPAIRED]) {
      for (const field of ['document', 'progress', 'device', 'device_id']) {
        const res = await push({ [field]: `${field === 'document' ? 'b'.repeat(31) : 'x'}${c}` });
        expect([res.status, res.body.code], `${JSON.stringify(c)} in ${field}`).toEqual([422, 'validation_failed']);
      }
    }
    for (const c of NAME_ONLY) expect((await push({ device: `Ko${c}bo` })).status).toBe(422);
    const pulled = await request(t.app).get(`/kosync/syncs/progress/${'b'.repeat(31)}x`).set(koreaderHeaders('alice', key));
    expect(pulled.body).toEqual({});
  });

  it('in the text parts of an upload: 422, and no book kept', async () => {
    const before = (await as().get('/api/books')).body.total;
    for (const c of FORBIDDEN) {
      const res = await upload(t.app, alice, Buffer.from(`A book ${c.length}\n`), 'Upload.txt', { title: `Bad ${c}` });
      expect(refused(res, 'title'), JSON.stringify(c)).toEqual([422, 'validation_failed', true]);
    }
    expect((await as().get('/api/books')).body.total).toBe(before);
  });
});
