import express, { type RequestHandler } from 'express';
import helmet from 'helmet';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { API_HELMET_OPTIONS, apiHeaders, replayedHeaders } from '../../../src/adapters/http/security.js';

/** The response's headers in the order written, without the ones that change per response. */
async function headersOf(handler: RequestHandler): Promise<string[]> {
  const app = express();
  app.get('/x', (_req, res, next) => { res.setHeader('X-Powered-By', 'something'); next(); }, handler, (_req, res) => void res.end('ok'));
  const res = await request(app).get('/x');
  const raw = res.headers as Record<string, string>;
  return Object.keys(raw).filter((name) => !['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length'].includes(name)).map((name) => `${name}: ${raw[name]}`);
}

describe('the API security headers, replayed from helmet', () => {
  it('are exactly the headers helmet itself sets with the API options, in the same order', async () => {
    const fromHelmet = await headersOf(helmet(API_HELMET_OPTIONS));
    expect(fromHelmet.length).toBeGreaterThan(10);
    expect(await headersOf(apiHeaders)).toEqual(fromHelmet);
  });

  it('remove a header helmet removes (X-Powered-By)', async () => {
    const app = express();
    app.get('/x', (_req, res, next) => { res.setHeader('X-Powered-By', 'leaky'); next(); }, apiHeaders, (_req, res) => void res.end('ok'));
    const res = await request(app).get('/x');
    expect(res.headers['x-powered-by']).toBeUndefined();
    expect(res.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
  });

  it('refuse a middleware whose headers could depend on the request, or that hands on late or with an error', () => {
    expect(() => replayedHeaders((req, res, next) => { res.setHeader('X-Path', req.path); next(); })).toThrow(/reads the request/);
    expect(() => replayedHeaders((_req, res, next) => { res.setHeader('X-Late', '1'); setImmediate(next); })).toThrow(/synchronously/);
    expect(() => replayedHeaders((_req, _res, next) => next(new Error('no')))).toThrow(/without error/);
    expect(() => replayedHeaders(helmet({ contentSecurityPolicy: { directives: { 'script-src': [(req) => String((req as { url?: string }).url)] } } }))).toThrow(/reads the request|without error/);
  });
});
