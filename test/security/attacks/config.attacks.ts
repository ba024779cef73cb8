import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { bearer, registerUser } from '../../support/test-app.js';
import { attack, isProblem, verdict, STACK_TRACE, type Attack, type Seen } from '../support/outcome.js';
import { otherApp, type World } from '../support/world.js';

const PW = 'correct horse battery';

function headerProblems(r: Seen, path: string): string[] {
  const h = r.headers as Record<string, string | undefined>;
  const out: string[] = [];
  if (h['x-content-type-options'] !== 'nosniff') out.push('nosniff');
  const hsts = /max-age=(\d+)/.exec(h['strict-transport-security'] ?? '');
  if (!hsts || Number(hsts[1]) < 31_536_000 || !/includeSubDomains/i.test(h['strict-transport-security'] ?? '')) out.push('hsts');
  if (!path.startsWith('/docs') && !/default-src 'none'/.test(h['content-security-policy'] ?? '')) out.push('csp default-src');
  if (!/frame-ancestors 'none'/.test(h['content-security-policy'] ?? '')) out.push('csp frame-ancestors');
  if (h['referrer-policy'] !== 'no-referrer') out.push('referrer-policy');
  if ('x-powered-by' in h) out.push('x-powered-by');
  if ((path.startsWith('/api') || r.status >= 400) && !/no-store/.test(h['cache-control'] ?? '')) out.push('cache-control');
  return out;
}

const headerCases: Array<[string, (w: World) => Promise<Seen>, string]> = [
  ['healthz', (w) => w.api().get('/healthz'), '/healthz'],
  ['auth-config', (w) => w.api().get('/api/auth/config'), '/api/auth/config'],
  ['login-ok', (w) => w.api().post('/api/auth/login').send({ username: 'bob', password: PW }), '/api/auth/login'],
  ['me-401', (w) => w.api().get('/api/auth/me'), '/api/auth/me'],
  ['books-200', (w) => w.api().get('/api/books').set(bearer(w.bob.token)), '/api/books'],
  ['book-file', (w) => w.api().get(`/api/books/${w.ids.bobBook}/file`).set(bearer(w.bob.token)), '/api/books/x/file'],
  ['unknown-404', (w) => w.api().get('/no/such/route'), '/no/such/route'],
  ['malformed-400', (w) => w.api().post('/api/auth/login').set('Content-Type', 'application/json').send('{"a":'), '/api/auth/login'],
  ['method-405', (w) => w.api().delete('/api/auth/config'), '/api/auth/config'],
  ['openapi', (w) => w.api().get('/openapi.json'), '/openapi.json'],
  ['docs', (w) => w.api().get('/docs/'), '/docs/'],
];

const leakCases: Array<[string, (a: ReturnType<typeof request>) => Promise<Seen>]> = [
  ['malformed-json', (a) => a.post('/api/auth/login').set('Content-Type', 'application/json').send('{"a":')],
  ['bad-boundary', (a) => a.post('/api/auth/register').set('Content-Type', 'multipart/form-data; boundary=').send('--x\r\n')],
  ['unknown-route', (a) => a.get('/api/nope')],
  ['too-large', (a) => a.post('/api/auth/login').set('Content-Type', 'application/json').send(`{"username":"${'x'.repeat(200_000)}"}`)],
  ['bad-percent-encoding', (a) => a.get('/api/books/%E0%A4%A')],
  ['bad-charset', (a) => a.post('/api/auth/login').set('Content-Type', 'application/json; charset=utf-7').send('{}')],
  ['gzip-lie', (a) => a.post('/api/auth/login').set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').send('not gzip')],
];

export const configAttacks: Attack[] = [
  ...headerCases.map(([slug, send, path]) => attack('CFG-01', `headers.${slug}`, `security headers on ${path} (${slug})`, async (w) => {
    const res = await send(w);
    const missing = headerProblems(res, path);
    return verdict(res, missing.length === 0, missing.join(', '));
  })),
  attack('CFG-02', 'no-origins-configured', 'with no allow-list, an evil and a null Origin get no CORS headers', async (w) => {
    const seen = [await w.api().get('/api/auth/config').set('Origin', 'https://evil.example'), await w.api().get('/api/auth/config').set('Origin', 'null')];
    return verdict(seen, seen.every((r) => !('access-control-allow-origin' in r.headers)));
  }),
  attack('CFG-02', 'allow-list', 'an allowed origin is echoed exactly with Vary; evil, null and preflights from evil are not', async () => {
    const other = await otherApp({ DATABASE_URL: 'memory:', CORS_ORIGINS: 'https://app.example' });
    try {
      const a = () => request(other.app);
      const good = await a().get('/api/auth/config').set('Origin', 'https://app.example');
      const evil = await a().get('/api/auth/config').set('Origin', 'https://evil.example');
      const nul = await a().get('/api/auth/config').set('Origin', 'null');
      const sub = await a().get('/api/auth/config').set('Origin', 'https://app.example.evil.example');
      const pre = await a().options('/api/books').set('Origin', 'https://evil.example').set('Access-Control-Request-Method', 'DELETE');
      const ok = good.headers['access-control-allow-origin'] === 'https://app.example' && /Origin/.test(String(good.headers.vary))
        && good.headers['access-control-allow-credentials'] === undefined
        && [evil, nul, sub, pre].every((r) => !('access-control-allow-origin' in r.headers) && !('access-control-allow-methods' in r.headers));
      return verdict([good, evil, nul, sub, pre], ok);
    } finally {
      await other.close();
    }
  }),
  ...['development', 'production', ''].map((mode) => attack('CFG-03', `no-stack-${mode || 'unset'}`, `no stack trace or library text in any error, NODE_ENV=${mode || '(unset)'}`, async () => {
    const saved = process.env.NODE_ENV;
    if (mode) process.env.NODE_ENV = mode; else delete process.env.NODE_ENV;
    const other = await otherApp({ DATABASE_URL: 'memory:' });
    try {
      const seen: Seen[] = [];
      for (const [, send] of leakCases) seen.push(await send(request(other.app)));
      const clean = seen.every((r) => r.status >= 400 && r.status < 500 && isProblem(r, r.status) && !STACK_TRACE.test(r.text ?? '') && !/body-parser|busboy|express|zod/i.test(r.text ?? ''));
      return verdict(seen, clean, seen.map((r) => r.status).join(','));
    } finally {
      await other.close();
      if (saved === undefined) delete process.env.NODE_ENV; else process.env.NODE_ENV = saved;
    }
  })),
  ...[['TRACE', '/'], ['TRACE', '/api/books'], ['TRACK', '/api/books'], ['PROPFIND', '/api/books'], ['CONNECT', '/api/books'], ['FOO', '/api/books']].map(([method, path]) =>
    attack('CFG-04', `method-${method}${path!.replace(/\//g, '-')}`, `${method} ${path}: refused, nothing echoed`, async (w) => {
      const res = await fetch(`${w.url}${path}`, { method: method!, headers: { 'X-Echo-Me': 'canary-value', ...bearer(w.bob.token) } }).catch(() => null);
      if (!res) return verdict({ status: 400, headers: {} }, true, 'refused by the HTTP client or parser');
      const text = await res.text();
      return verdict({ status: res.status, text, headers: Object.fromEntries(res.headers) }, [400, 404, 405, 501].includes(res.status) && !text.includes('canary-value'));
    })),
  attack('CFG-04', 'options-without-cors', 'OPTIONS without a CORS preflight is not a free method', async (w) => {
    const res = await w.api().options('/api/books').set(bearer(w.bob.token));
    return verdict(res, [204, 404, 405].includes(res.status) && !('access-control-allow-origin' in res.headers));
  }),
  ...['/.git/HEAD', '/.git/config', '/.env', '/debug', '/metrics', '/api-docs', '/server-status', '/api/debug', '/api/metrics', '/admin', '/data/stacks.db'].map((p) =>
    attack('CFG-05', `absent${p.replace(/[/.]/g, '-')}`, `${p} gives 404`, async (w) => {
      const res = await w.api().get(p);
      return verdict(res, isProblem(res, [401, 404]));
    })),
  attack('CFG-05', 'swagger-query-config', '/docs/?url=https://evil/spec.json still renders the local spec', async (w) => {
    const page = await w.api().get('/docs/?url=https://evil.example/spec.json&configUrl=https://evil.example/c.json');
    const init = await w.api().get('/docs/swagger-ui-init.js');
    return verdict([page, init], page.status === 200 && init.text.includes('"url": "/openapi.json"') && /"queryConfigEnabled": false/.test(init.text) && !init.text.includes('evil'));
  }),
  attack('CFG-06', 'documented-routes-answer', 'every documented path and method is served (none is route_not_found)', async (w) => {
    const doc = (await w.api().get('/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const seen: Seen[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) {
        const res = await w.api()[method as 'get'](path.replace(/\{\w+\}/g, 'no-such-id')).set('Content-Type', 'application/json').send(method === 'get' ? undefined : '{}');
        seen.push(res);
      }
    }
    return verdict(seen, seen.every((r) => (r as { body?: { code?: string } }).body?.code !== 'route_not_found' && r.status !== 405));
  }),
  attack('CFG-07', 'xff-not-trusted', 'forged X-Forwarded-For values all land in one address bucket', async () => {
    const policies = { account: { maxFailures: 100, windowMs: 900_000, blockMs: 300_000, maxBlockMs: 3_600_000 },
      address: { maxFailures: 5, windowMs: 86_400_000, blockMs: 900_000, maxBlockMs: 86_400_000 } };
    const other = await otherApp({ DATABASE_URL: 'memory:' }, { loginPolicies: policies });
    try {
      await registerUser(other.app, 'xffuser');
      const seen: Seen[] = [];
      for (let i = 0; i < 5; i++) seen.push(await request(other.app).post('/api/auth/login').set('X-Forwarded-For', `10.0.0.${i}`).send({ username: `n${i}`, password: 'x' }));
      seen.push(await request(other.app).post('/api/auth/login').set('X-Forwarded-For', '192.0.2.99').send({ username: 'xffuser', password: PW }));
      return verdict(seen, isProblem(seen[5]!, 429));
    } finally {
      await other.close();
    }
  }),
  attack('AC-05', 'store-down-fails-closed', 'with the store closed, protected routes return no data and a generic body', async () => {
    const other = await otherApp({ DATABASE_URL: '' });
    const s = await registerUser(other.app, 'closed');
    await other.container.closeStore();
    const seen: Seen[] = [];
    for (const p of ['/api/auth/me', '/api/books', '/api/shelves']) seen.push(await request(other.app).get(p).set(bearer(s.token)));
    await other.close().catch(() => undefined);
    const closed = seen.every((r) => r.status >= 500 && isProblem(r, r.status) && !STACK_TRACE.test(r.text ?? '') && !(r.text ?? '').includes('closed@'));
    // The 5xx is the safe answer here (the dependency is down); it is not counted as a crash.
    return { ...verdict(seen, closed, seen.map((r) => r.status).join(',')), fiveXx: false };
  }),
  attack('AUTH-12', 'no-secrets-in-logs', 'after the suite, no password, token or hash appears in any log line', async (w) => {
    const logs = w.logLines.join('');
    const secrets = [PW, w.alice.token, w.bob.token, w.admin.token, 'wrong password 3', '$2b$04$', '$2a$04$'];
    const hits = secrets.filter((s) => logs.includes(s));
    return verdict({ status: 200, headers: {} }, hits.length === 0 && w.logLines.length > 100, `hits: ${hits.length}, lines: ${w.logLines.length}`);
  }),
  attack('AUTH-03', 'no-plaintext-in-store', 'the embedded database files hold no plaintext password', async (w) => {
    const files = readdirSync(w.dataDir).filter((f) => /\.(db|sqlite|db-wal)$/.test(f) || f.includes('db'));
    const hits = files.filter((f) => readFileSync(join(w.dataDir, f)).includes(PW));
    return verdict({ status: 200, headers: {} }, files.length > 0 && hits.length === 0, `files: ${files.join(',')}`);
  }),
];

