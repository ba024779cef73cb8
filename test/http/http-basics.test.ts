import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ CORS_ORIGINS: 'https://app.example.test' });
});
afterAll(() => t.close());

const STACK_TRACE = /at .*\(|node_modules|\/src\/|SyntaxError|Error:/;

describe('HTTP conventions', () => {
  it('answers unknown routes with a 404 problem and known paths with a wrong method with 405', async () => {
    const missing = await request(t.app).get('/api/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(missing.body).toMatchObject({ type: 'about:blank', title: 'Not Found', status: 404, code: 'route_not_found' });
    const wrongMethod = await request(t.app).delete('/api/auth/me');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toBe('GET, HEAD');
  });

  it('sets nosniff and no X-Powered-By on every response, including errors', async () => {
    for (const path of ['/healthz', '/api/nothing', '/api/auth/me', '/openapi.json']) {
      const res = await request(t.app).get(path);
      expect(res.headers['x-content-type-options'], path).toBe('nosniff');
      expect(res.headers['x-powered-by'], path).toBeUndefined();
    }
  });

  it('never puts a stack trace in an error body', async () => {
    const responses = await Promise.all([
      request(t.app).post('/api/auth/login').set('Content-Type', 'application/json').send('{"a":'),
      request(t.app).post('/api/auth/login').set('Content-Type', 'application/json').send('[1,2'),
      request(t.app).get('/api/auth/me').set('Authorization', 'Bearer a.b.c'),
      request(t.app).get('/api/users/%E0%A4%A'),
      request(t.app).post('/api/auth/register').set('Content-Type', 'application/json').send('{"username":'.padEnd(200_000, 'x')),
    ]);
    for (const res of responses) {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.text).not.toMatch(STACK_TRACE);
    }
  });

  it('echoes only allow-listed CORS origins', async () => {
    const allowed = await request(t.app).get('/healthz').set('Origin', 'https://app.example.test');
    expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example.test');
    expect(allowed.headers.vary).toMatch(/Origin/);
    for (const origin of ['https://evil.example', 'null']) {
      const res = await request(t.app).options('/api/auth/me').set('Origin', origin).set('Access-Control-Request-Method', 'GET');
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('serves health and readiness', async () => {
    expect((await request(t.app).get('/healthz')).body).toEqual({ status: 'ok' });
    expect((await request(t.app).get('/readyz')).body).toEqual({ status: 'ready' });
  });

  it('serves readiness 503 when the store is closed', async () => {
    const other = await startTestApp();
    await other.close();
    const res = await request(other.app).get('/readyz');
    expect(res.status).toBe(503);
    expect(res.body.code).toBe('not_ready');
  });

  it('serves an OpenAPI 3.1 document with the bearer scheme and every route', async () => {
    const res = await request(t.app).get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.info.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(res.body.components.securitySchemes.bearerAuth).toEqual({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
    for (const path of ['/api/auth/register', '/api/auth/login', '/api/auth/me', '/api/auth/logout', '/api/auth/password', '/api/auth/config', '/api/users', '/api/users/{id}', '/api/roles', '/healthz', '/readyz']) {
      expect(res.body.paths[path], path).toBeDefined();
    }
    expect(res.body.paths['/api/auth/me'].get.security).toEqual([{ bearerAuth: [] }]);
    expect(res.body.paths['/api/auth/login'].post.security).toEqual([]);
  });

  it('serves Swagger UI at /docs pointing at /openapi.json, ignoring ?url=', async () => {
    const page = await request(t.app).get('/docs/?url=https://evil.example/spec.json');
    expect(page.status).toBe(200);
    expect(page.text).toContain('swagger-ui');
    const init = await request(t.app).get('/docs/swagger-ui-init.js');
    expect(init.text).toContain('/openapi.json');
    expect(init.text).toContain('"queryConfigEnabled": false');
  });
});
