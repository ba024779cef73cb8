import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, registerUser, startTestApp, type TestApp } from '../support/test-app.js';
import { filePart, multipart, multipartType } from './support/multipart.js';
import { rawRequest, closeAgent } from './support/raw-http.js';
import { closeServer, listen } from './support/world.js';

let t: TestApp;

beforeAll(async () => {
  t = await startTestApp({ CORS_ORIGINS: 'https://app.example' });
});
afterAll(async () => {
  await t.close();
});

describe('fixes found by the security suite', () => {
  it('CFG-02: a preflight from an origin off the allow-list gets no CORS header at all', async () => {
    const res = await request(t.app).options('/api/books').set('Origin', 'https://evil.example').set('Access-Control-Request-Method', 'DELETE');
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    const good = await request(t.app).options('/api/books').set('Origin', 'https://app.example').set('Access-Control-Request-Method', 'DELETE');
    expect(good.status).toBe(204);
    expect(good.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(good.headers['access-control-allow-methods']).toContain('DELETE');
  });

  it('CFG-04: OPTIONS that is not a CORS preflight is 405 with Allow (404 off the routes), never an automatic 200', async () => {
    const known = await request(t.app).options('/api/books');
    expect(known.status).toBe(405);
    expect(known.headers.allow).toBe('GET, POST, HEAD');
    expect(known.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(known.headers['x-content-type-options']).toBe('nosniff');
    expect((await request(t.app).options('/api/nowhere')).status).toBe(404);
  });

  it('fuzz: a multipart body cut off inside the file part is a 400 malformed_multipart, never a 500', async () => {
    const s = await registerUser(t.app, 'truncator');
    const body = multipart([filePart('cut.txt', 'some text that will be cut\n')]);
    const statuses = new Set<number>();
    for (let n = body.indexOf('\r\n\r\n') + 4; n < body.length - 6; n += 3) {
      const res = await request(t.app).post('/api/books').set(bearer(s.token)).set('Content-Type', multipartType()).send(body.subarray(0, n));
      statuses.add(res.status);
      expect(res.body.code, `cut at ${n}`).toBe('malformed_multipart');
    }
    expect([...statuses]).toEqual([400]);
  });

  it('fuzz: POST /api/auth/login documents its 401 invalid_credentials', async () => {
    const doc = (await request(t.app).get('/openapi.json')).body;
    expect(Object.keys(doc.paths['/api/auth/login'].post.responses)).toContain('401');
    expect((await request(t.app).post('/api/auth/login').send({ username: 'nobody', password: 'nothing at all' })).status).toBe(401);
  });

  it('TOK-07: two Authorization headers are refused with 401 whichever comes first', async () => {
    const s = await registerUser(t.app, 'twoheaders');
    const { server, url } = await listen(t);
    try {
      for (const pair of [[`Bearer ${s.token}`, 'Bearer junk'], ['Bearer junk', `Bearer ${s.token}`], [`Bearer ${s.token}`, `Bearer ${s.token}`]]) {
        const res = await rawRequest(url, 'GET', '/api/auth/me', { Authorization: pair });
        expect(res.status).toBe(401);
      }
      expect((await rawRequest(url, 'GET', '/api/auth/me', { Authorization: `Bearer ${s.token}` })).status).toBe(200);
    } finally {
      closeAgent();
      await closeServer(server);
    }
  });

  it('fuzz: the download documents the detected media type it really sends, not only application/octet-stream', async () => {
    const doc = (await request(t.app).get('/openapi.json')).body;
    const s = await registerUser(t.app, 'downloader');
    const up = await request(t.app).post('/api/books').set(bearer(s.token)).attach('file', Buffer.from('Plain words.\n'), 'plain.txt');
    const dl = await request(t.app).get(`/api/books/${up.body.id}/file`).set(bearer(s.token));
    expect(dl.headers['content-type']).toMatch(/^text\/plain/);
    expect(Object.keys(doc.paths['/api/books/{id}/file'].get.responses['200'].content)).toEqual(['*/*']);
  });
});
