import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEpub, buildFb2, buildPdf, tinyPng } from '../support/fixtures/index.js';
import { upload } from '../support/books.js';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';

let t: TestApp;
let alice: Session;
let bob: Session;
let fb2: Buffer;
let fb2Id: string;
let epubId: string;
let pdfId: string;

beforeAll(async () => {
  t = await startTestApp();
  await registerUser(t.app, 'admin');
  alice = await registerUser(t.app, 'alice');
  bob = await registerUser(t.app, 'bob');
  fb2 = buildFb2();
  fb2Id = (await upload(t.app, alice, fb2, 'Война и мир.fb2')).body.id;
  epubId = (await upload(t.app, alice, await buildEpub({ title: '&lt;script&gt;alert(1)&lt;/script&gt;', cover: tinyPng(3, 3) }), 'x.epub')).body.id;
  pdfId = (await upload(t.app, alice, buildPdf({ info: { Title: 'No cover' } }), 'plain.pdf')).body.id;
  expect([fb2Id, epubId, pdfId].every(Boolean)).toBe(true);
});
afterAll(() => t.close());

const binary = (res: request.Response, done: (error: Error | null, body: Buffer) => void) => {
  const stream = res as unknown as NodeJS.ReadableStream;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  stream.on('end', () => done(null, Buffer.concat(chunks)));
};
const get = (path: string, headers: Record<string, string> = {}, who: Session = bob) =>
  request(t.app).get(path).set(bearer(who.token)).set(headers).buffer(true).parse(binary);

describe('GET /api/books/{id}/file', () => {
  it('sends the exact bytes with the detected type, an RFC 6266 attachment name, ETag and Accept-Ranges', async () => {
    const res = await get(`/api/books/${fb2Id}/file`);
    expect(res.status).toBe(200);
    expect(Buffer.compare(res.body as Buffer, fb2)).toBe(0);
    expect(res.headers['content-type']).toBe('application/x-fictionbook+xml');
    expect(res.headers['content-length']).toBe(String(fb2.length));
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="????? ? ???.fb2"; filename*=UTF-8''${encodeURIComponent('Война и мир')}.fb2`,
    );
    const sha = (await get(`/api/books/${fb2Id}`)).body;
    expect(res.headers.etag).toBe(`"${JSON.parse(sha.toString()).sha256}"`);
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('serves an EPUB whose title is a script as an attachment, never inline HTML', async () => {
    const res = await get(`/api/books/${epubId}/file`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/epub+zip');
    expect(res.headers['content-disposition']).toBe('attachment; filename=x.epub');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('answers If-None-Match with the current ETag by 304 and no body; another ETag gets the file', async () => {
    const etag = (await get(`/api/books/${fb2Id}/file`)).headers.etag as string;
    const fresh = await get(`/api/books/${fb2Id}/file`, { 'If-None-Match': etag });
    expect(fresh.status).toBe(304);
    expect((fresh.body as Buffer).length).toBe(0);
    const stale = await get(`/api/books/${fb2Id}/file`, { 'If-None-Match': '"something-else"' });
    expect(stale.status).toBe(200);
  });

  it('serves one byte range as 206 with Content-Range and exactly those bytes', async () => {
    const size = fb2.length;
    const cases: Array<[string, number, number]> = [
      ['bytes=0-9', 0, 9],
      ['bytes=10-', 10, size - 1],
      ['bytes=-5', size - 5, size - 1],
      [`bytes=100-${size + 1000}`, 100, size - 1],
    ];
    for (const [header, start, end] of cases) {
      const res = await get(`/api/books/${fb2Id}/file`, { Range: header });
      expect(res.status, header).toBe(206);
      expect(res.headers['content-range']).toBe(`bytes ${start}-${end}/${size}`);
      expect(res.headers['content-length']).toBe(String(end - start + 1));
      expect(Buffer.compare(res.body as Buffer, fb2.subarray(start, end + 1)), header).toBe(0);
    }
  });

  it('is 416 with Content-Range: bytes */size for a range past the end', async () => {
    const res = await request(t.app).get(`/api/books/${fb2Id}/file`).set(bearer(bob.token)).set('Range', `bytes=${fb2.length}-`);
    expect(res.status).toBe(416);
    expect(res.headers['content-range']).toBe(`bytes */${fb2.length}`);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.code).toBe('range_not_satisfiable');
  });

  it('sends the whole file for several ranges, a malformed Range or a stale If-Range', async () => {
    const variants: Array<Record<string, string>> = [{ Range: 'bytes=0-1,5-6' }, { Range: 'pages=1-2' }, { Range: 'bytes=0-9', 'If-Range': '"old"' }];
    for (const headers of variants) {
      const res = await get(`/api/books/${fb2Id}/file`, headers);
      expect(res.status, JSON.stringify(headers)).toBe(200);
      expect((res.body as Buffer).length).toBe(fb2.length);
    }
  });

  it('keeps a CR/LF in an edited title out of the headers', async () => {
    const patched = await request(t.app)
      .patch(`/api/books/${pdfId}`)
      .set(bearer(alice.token))
      .send({ title: 'Evil\r\nX-Injected: yes' });
    expect(patched.status).toBe(200);
    expect(patched.body.title).toBe('Evil X-Injected: yes');
    const res = await get(`/api/books/${pdfId}/file`);
    expect(res.status).toBe(200);
    expect(res.headers['x-injected']).toBeUndefined();
    expect(res.headers['content-disposition']).toBe('attachment; filename=plain.pdf');
  });

  it('is 404 book_not_found for an unknown id and 401 without a token', async () => {
    const res = await request(t.app).get('/api/books/no-such-book/file').set(bearer(bob.token));
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('book_not_found');
    expect((await request(t.app).get(`/api/books/${fb2Id}/file`)).status).toBe(401);
  });
});

describe('GET /api/books/{id}/cover', () => {
  it('sends the stored cover with its media type', async () => {
    const res = await get(`/api/books/${epubId}/cover`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(res.body as Buffer, tinyPng(3, 3))).toBe(0);
  });

  it('is 404 cover_not_found for a book without one, and book_not_found for an unknown book', async () => {
    const none = await request(t.app).get(`/api/books/${pdfId}/cover`).set(bearer(bob.token));
    expect(none.status).toBe(404);
    expect(none.body.code).toBe('cover_not_found');
    const unknown = await request(t.app).get('/api/books/nope/cover').set(bearer(bob.token));
    expect(unknown.body.code).toBe('book_not_found');
  });
});
