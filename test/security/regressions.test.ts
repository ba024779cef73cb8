import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, registerUser, startTestApp, type TestApp } from '../support/test-app.js';
import { filePart, multipart, multipartType } from './support/multipart.js';
import { rawRequest, closeAgent } from './support/raw-http.js';
import { closeServer, listen } from './support/world.js';
import { FixedWindowLimiter } from '../../src/adapters/http/rate-limit.js';
import { addressBucket } from '../../src/domain/client-address.js';

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

  it('RES-02: every address has a request budget per minute; the excess is 429 with Retry-After and the API headers', async () => {
    const limited = await startTestApp({ RATE_LIMIT_PER_MINUTE: '10' });
    try {
      const statuses: number[] = [];
      let last = await request(limited.app).get('/api/auth/config');
      for (let i = 0; i < 20; i++) statuses.push((last = await request(limited.app).get('/api/auth/config')).status);
      expect(statuses.filter((s) => s === 429)).toHaveLength(11);
      expect(last.body.code).toBe('rate_limited');
      expect(Number(last.headers['retry-after'])).toBeGreaterThan(0);
      expect(last.headers['x-content-type-options']).toBe('nosniff');
      expect((await request(limited.app).get('/healthz')).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('AUTH-08: registration attempts per address are capped; no account is created past the cap', async () => {
    const limited = await startTestApp({ REGISTER_LIMIT_PER_HOUR: '3' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        statuses.push((await request(limited.app).post('/api/auth/register').send({ username: `mass${i}`, email: `mass${i}@example.test`, password: 'correct horse battery' })).status);
      }
      expect(statuses).toEqual([201, 201, 201, 429, 429, 429]);
      expect((await request(limited.app).post('/api/auth/login').send({ username: 'mass4', password: 'correct horse battery' })).status).toBe(401);
    } finally {
      await limited.close();
    }
  });

  it('RES-02: the fixed window resets, and IPv6 addresses share a bucket per /56', () => {
    let now = 0;
    const limiter = new FixedWindowLimiter(2, 1000, () => now);
    expect([limiter.hit('a'), limiter.hit('a'), limiter.hit('a'), limiter.hit('b')]).toEqual([0, 0, 1, 0]);
    now = 1000;
    expect(limiter.hit('a')).toBe(0);
    expect(addressBucket('2001:db8:abcd:12ff::1')).toBe(addressBucket('2001:db8:abcd:1200:ffff::9'));
    expect(addressBucket('2001:db8:abcd:13ff::1')).not.toBe(addressBucket('2001:db8:abcd:12ff::1'));
    expect(addressBucket('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(addressBucket('10.0.0.1')).not.toBe(addressBucket('10.0.0.2'));
  });

  it('RES-02: every operation but the health probes documents the 429 the rate limit can give and the 503 of a store that does not answer', async () => {
    const doc = (await request(t.app).get('/openapi.json')).body as { paths: Record<string, Record<string, { responses: object }>> };
    const missing = Object.entries(doc.paths).filter(([path]) => !['/healthz', '/readyz'].includes(path)).flatMap(([path, ops]) => Object.entries(ops)
      .flatMap(([method, op]) => ['429', '503'].filter((status) => !(status in op.responses)).map((status) => `${method} ${path} ${status}`)));
    expect(missing).toEqual([]);
  });
});
