import type { Request } from 'express';
import type { Server } from 'node:http';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretChecksOf } from '../../src/adapters/http/app.js';
import { createHttpServer, listen, stopServer } from '../../src/adapters/http/http-server.js';
import { httpDepsFrom } from '../../src/bootstrap/http.js';
import { registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';

/** 150 connections at once from loopback: the per-address connection cap (tested in slow-clients.test.ts) is lifted. */
const LOOPBACK = { maxConnectionsPerAddress: 100_000 };
let t: TestApp;
let server: Server;
let port: number;
let reader: Session;
beforeAll(async () => {
  t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '0' });
  reader = await registerUser(t.app, 'reader');
  server = createHttpServer(t.app, LOOPBACK);
  port = await listen(server, 0, '127.0.0.1');
});
afterAll(async () => {
  await stopServer(server, 1000);
  await t.close();
});

const rawRequest = (method: string, path: string, headers: Record<string, string>, body = '') =>
  [`${method} ${path} HTTP/1.1`, 'Host: localhost', 'Connection: close', `Content-Length: ${Buffer.byteLength(body)}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', body].join('\r\n');

const burstClient = fileURLToPath(new URL('../support/burst-client.mjs', import.meta.url));

describe('a burst of logins does not hold up a signed-in reader', () => {
  it('answers /api/auth/me sent after 150 logins before almost all of them (the client is another process, as an attacker is)', async () => {
    const invalidLogin = JSON.stringify({ username: 'someone' });
    const requests = [
      ...Array.from({ length: 150 }, (_, i) => ({ name: `login${i}`, raw: rawRequest('POST', '/api/auth/login', { 'Content-Type': 'application/json' }, invalidLogin) })),
      { name: 'me', raw: rawRequest('GET', '/api/auth/me', { Authorization: `Bearer ${reader.token}` }) },
    ];
    const { stdout } = await promisify(execFile)(process.execPath, [burstClient, String(port), JSON.stringify(requests)]);
    const answered = JSON.parse(stdout) as string[];

    expect(answered.filter((a) => a.startsWith('login')).map((a) => a.split(' ')[1])).toEqual(Array(150).fill('422'));
    expect(answered).toContain('me 200');
    expect(answered.indexOf('me 200')).toBeLessThan(50);
  });
});

describe('a flood beyond the request budget', () => {
  let limited: TestApp;
  let limitedServer: Server;
  let limitedPort: number;
  beforeAll(async () => {
    limited = await startTestApp({ RATE_LIMIT_PER_MINUTE: '10' });
    limitedServer = createHttpServer(limited.app, LOOPBACK);
    limitedPort = await listen(limitedServer, 0, '127.0.0.1');
  });
  afterAll(async () => {
    await stopServer(limitedServer, 1000);
    await limited.close();
  });

  it('is refused at once, not queued behind the logins within the budget', async () => {
    const invalidLogin = JSON.stringify({ username: 'someone' });
    const requests = Array.from({ length: 150 }, (_, i) => ({ name: `login${i}`, raw: rawRequest('POST', '/api/auth/login', { 'Content-Type': 'application/json' }, invalidLogin) }));
    const { stdout } = await promisify(execFile)(process.execPath, [burstClient, String(limitedPort), JSON.stringify(requests)]);
    const statuses = (JSON.parse(stdout) as string[]).map((a) => a.split(' ')[1]);

    expect(statuses.filter((s) => s === '422')).toHaveLength(10);
    expect(statuses.filter((s) => s === '429')).toHaveLength(140);
    const refusedBeforeLastAdmitted = statuses.slice(0, statuses.lastIndexOf('422')).filter((s) => s === '429');
    expect(refusedBeforeLastAdmitted.length).toBeGreaterThanOrEqual(100);
  });
});

describe('the secret-check lane of the real app', () => {
  const picked = (method: string, path: string) => secretChecksOf(httpDepsFrom(t.container))({ method, path } as Request);

  it('takes every request that checks a password, key or one-time code', () => {
    const checks = [
      ['POST', '/api/auth/login'], ['POST', '/api/auth/register'], ['PUT', '/api/auth/password'], ['POST', '/api/auth/oidc/token'], ['GET', '/api/auth/oidc/callback'],
      ['POST', '/kosync/users/create'], ['GET', '/kosync/users/auth'], ['PUT', '/kosync/syncs/progress'], ['GET', '/kosync/syncs/progress/abc'],
      ['GET', '/opds'], ['GET', '/opds/v2/publications'], ['GET', '/opds/books/x/file'],
    ];
    expect(checks.filter(([method, path]) => !picked(method!, path!))).toEqual([]);
  });

  it('lets token-authenticated reads and writes, health and docs pass at once', () => {
    const others = [
      ['GET', '/api/auth/me'], ['POST', '/api/auth/logout'], ['GET', '/api/books'], ['POST', '/api/books'], ['GET', '/api/books/x/file'],
      ['PUT', '/api/books/x/progress'], ['POST', '/api/shelves'], ['GET', '/healthz'], ['GET', '/readyz'], ['GET', '/openapi.json'],
      ['GET', '/api/auth/config'], ['POST', '/api/auth/keys'], ['GET', '/api/auth/oidc/login'], ['GET', '/opdsx'],
    ];
    expect(others.filter(([method, path]) => picked(method!, path!))).toEqual([]);
  });
});
