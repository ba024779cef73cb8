import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

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
});
