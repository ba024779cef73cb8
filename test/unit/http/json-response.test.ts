import express, { type Express, type Request, type Response } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { fastJsonResponses } from '../../../src/adapters/http/json-response.js';

/** An app as createApp configures Express, answering `/:case` with `answer`; with or without the fast path. */
function appWith(fast: boolean, answer: (req: Request, res: Response) => void): Express {
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.set('query parser', 'simple');
  if (fast) fastJsonResponses(app);
  app.all('/x', answer);
  return app;
}

const BIG = { items: Array.from({ length: 80 }, (_, i) => ({ id: `b${i}`, title: `Ünïcödé title ${i} — 📚`, tags: ['a', 'b'] })), total: 80 };

const CASES: Record<string, (req: Request, res: Response) => void> = {
  'small object': (_req, res) => void res.json({ id: 'x', title: 'Harbour', n: 1, none: null }),
  'large object, multibyte text (over 1,000 characters)': (_req, res) => void res.json(BIG),
  'status 201 with Location': (_req, res) => void res.status(201).location('/x/1').json({ id: '1' }),
  'a string': (_req, res) => void res.json('text'),
  'null': (_req, res) => void res.json(null),
  'undefined': (_req, res) => void res.json(undefined),
  'status 204': (_req, res) => void res.status(204).json({ gone: true }),
  'problem+json set first': (_req, res) => void res.status(404).type('application/problem+json').json({ code: 'not_found' }),
  'res.send of an object': (_req, res) => void res.send({ via: 'send' }),
};

const REQUESTS: Record<string, (app: Express) => request.Test> = {
  GET: (app) => request(app).get('/x'),
  HEAD: (app) => request(app).head('/x'),
  'GET If-None-Match: *': (app) => request(app).get('/x').set('If-None-Match', '*'),
  'GET If-Modified-Since': (app) => request(app).get('/x').set('If-Modified-Since', 'Wed, 21 Oct 2015 07:28:00 GMT'),
  POST: (app) => request(app).post('/x'),
};

/** Status, headers in order (without Date) and the body's bytes. */
async function answerOf(test: request.Test) {
  const res = await test.buffer(true).parse((r, done) => {
    const chunks: Buffer[] = [];
    r.on('data', (c: Buffer) => chunks.push(c));
    r.on('end', () => done(null, Buffer.concat(chunks)));
  });
  const raw = (res as unknown as { res: { rawHeaders: string[] } }).res.rawHeaders;
  const headers = raw.filter((_v, i) => raw[i - (i % 2)]!.toLowerCase() !== 'date');
  return { status: res.status, headers, body: (res.body as Buffer).toString('hex') };
}

describe('JSON answers without Express detours', () => {
  for (const [name, answer] of Object.entries(CASES)) {
    it(`write what Express writes: ${name}`, async () => {
      for (const [label, make] of Object.entries(REQUESTS)) {
        const [fast, plain] = [await answerOf(make(appWith(true, answer))), await answerOf(make(appWith(false, answer)))];
        expect(fast, label).toEqual(plain);
      }
    });
  }

  it('take the fast path for a plain GET (Content-Type and Content-Length set once, nothing re-read)', async () => {
    const app = appWith(true, (_req, res) => void res.json({ ok: true }));
    const res = await request(app).get('/x');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength('{"ok":true}')));
    expect(res.text).toBe('{"ok":true}');
  });

  it('leave Express in charge when the app changes the JSON settings', async () => {
    const app = express();
    app.disable('etag');
    app.set('json spaces', 2);
    fastJsonResponses(app);
    app.get('/x', (_req, res) => void res.json({ a: 1 }));
    expect((await request(app).get('/x')).text).toBe('{\n  "a": 1\n}');
  });
});
