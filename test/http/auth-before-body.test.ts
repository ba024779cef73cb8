import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpDepsFrom } from '../../src/bootstrap/http.js';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';

let t: TestApp;
let alice: Session;
beforeAll(async () => {
  t = await startTestApp();
  await registerUser(t.app, 'admin');
  alice = await registerUser(t.app, 'alice');
});
afterAll(() => t.close());

const BIG_JSON = JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) });
const MALFORMED_JSON = '{"name": ';
const pathOf = (template: string) => template.replace(/\{\w+\}/g, 'some-id');
const FORGED = { Authorization: 'Bearer not.a.token' };

/** Every route that needs a token and takes a JSON body, as mounted. */
const jsonRoutesWithAuth = () => httpDepsFrom(t.container).routes.filter((r) => r.auth && r.body);

function send(method: string, path: string, body: string, headers: Record<string, string> = {}) {
  const agent = request(t.app) as unknown as Record<string, (path: string) => request.Test>;
  return (agent[method] as (path: string) => request.Test)(path).set({ 'Content-Type': 'application/json', ...headers }).send(body);
}

describe('a route that needs a token checks it before reading the body', () => {
  it('covers the JSON routes it is meant to', () => {
    expect(jsonRoutesWithAuth().map((r) => `${r.method} ${r.path}`)).toEqual(expect.arrayContaining(['post /api/shelves', 'put /api/auth/password']));
  });

  it('answers 401 to an anonymous or forged malformed JSON body, not 400', async () => {
    for (const r of jsonRoutesWithAuth()) {
      for (const headers of [{}, FORGED]) {
        const res = await send(r.method, pathOf(r.path), MALFORMED_JSON, headers);
        expect([res.status, res.body.code], `${r.method} ${r.path}`).toEqual([401, Object.keys(headers).length ? 'invalid_token' : 'missing_token']);
      }
    }
  });

  it('answers 401 to an anonymous 2 MB JSON body, not 413', async () => {
    for (const r of jsonRoutesWithAuth()) {
      const res = await send(r.method, pathOf(r.path), BIG_JSON);
      expect([res.status, res.body.code], `${r.method} ${r.path}`).toEqual([401, 'missing_token']);
    }
  });

  it('answers 401 to an anonymous malformed multipart upload, not 400', async () => {
    const res = await request(t.app).post('/api/books').set('Content-Type', 'multipart/form-data; boundary=x').send('--x\r\nnot a part');
    expect([res.status, res.body.code]).toEqual([401, 'missing_token']);
  });

  it('still reads the body for a signed-in caller: 400 malformed, 413 too large, 415 not JSON', async () => {
    expect((await send('post', '/api/shelves', MALFORMED_JSON, bearer(alice.token))).body.code).toBe('malformed_json');
    expect((await send('post', '/api/shelves', BIG_JSON, bearer(alice.token))).status).toBe(413);
    const notJson = await request(t.app).post('/api/shelves').set(bearer(alice.token)).set('Content-Type', 'text/plain').send('name');
    expect(notJson.status).toBe(415);
    expect((await send('post', '/api/shelves', JSON.stringify({ name: 'Read' }), bearer(alice.token))).status).toBe(201);
  });
});
