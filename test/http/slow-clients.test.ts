import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer, stopServer, type HttpServerLimits } from '../../src/adapters/http/http-server.js';
import { filePart, multipart, multipartType } from '../security/support/multipart.js';
import { storedFiles } from '../support/books.js';
import { registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';

/**
 * Slow requests are cut (API.md, "Authority, timing and input rules"), judged from a client in its own
 * process. The limits are made short for the test, and each case asserts only cut or not cut: the
 * generous deadlines below are reached only by a server that never cuts.
 */
const client = fileURLToPath(new URL('../support/slow-client.mjs', import.meta.url));
const DEADLINE_MS = 15_000;

interface Seen {
  readonly cut: boolean;
  readonly status?: number | null;
  readonly body?: string;
}

async function run(plan: object): Promise<Seen> {
  const child = spawn(process.execPath, [client, JSON.stringify({ deadlineMs: DEADLINE_MS, ...plan })], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  await once(child, 'exit');
  return JSON.parse(out) as Seen;
}

/** Starts a `hold` client and resolves once all its connections are open; kill it to let them go. */
async function hold(plan: object): Promise<ChildProcess> {
  const child = spawn(process.execPath, [client, JSON.stringify({ mode: 'hold', ...plan })], { stdio: ['ignore', 'pipe', 'inherit'] });
  await once(child.stdout!, 'data');
  return child;
}

async function serve(t: TestApp, limits: Partial<HttpServerLimits>): Promise<{ server: Server; port: number }> {
  const server = createHttpServer(t.app, limits);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

const head = (method: string, path: string, headers: Record<string, string>) =>
  `${method} ${path} HTTP/1.1\r\nHost: slow\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`;

let t: TestApp;
let alice: Session;
beforeAll(async () => {
  t = await startTestApp();
  alice = await registerUser(t.app, 'alice');
});
afterAll(() => t.close());

describe('slow requests are cut', { timeout: 40_000 }, () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    ({ server, port } = await serve(t, { headersTimeoutMs: 1_000, bodyIdleTimeoutMs: 1_500 }));
  });
  afterAll(() => stopServer(server, 0));

  it('cuts a request whose headers never end', async () => {
    expect((await run({ mode: 'headers', port })).cut).toBe(true);
  });

  it('answers 408 request_timeout to a body that stops sending (11 bytes of 100,000), signed in or not, and closes', async () => {
    const anonymous = await run({
      mode: 'stall', port, head: head('POST', '/api/auth/login', { 'Content-Type': 'application/json', 'Content-Length': '100000' }), first: '{"username"',
    });
    expect(anonymous).toMatchObject({ cut: true, status: 408 });
    expect(JSON.parse(anonymous.body ?? '{}')).toMatchObject({ status: 408, code: 'request_timeout' });
    const body = multipart([filePart('Slow - Book.txt', 'x'.repeat(50_000))]);
    const upload = await run({
      mode: 'stall', port, first: body.subarray(0, 300).toString('latin1'),
      head: head('POST', '/api/books', { Authorization: `Bearer ${alice.token}`, 'Content-Type': multipartType(), 'Content-Length': String(body.length) }),
    });
    expect(upload).toMatchObject({ cut: true, status: 408 });
  });

  it('leaves nothing staged after 12 uploads stalled at once are cut (attack 4, F1)', async () => {
    const body = multipart([filePart('Stalled - Upload.txt', 'y'.repeat(50_000))]);
    const stalled = await Promise.all(Array.from({ length: 12 }, () => run({
      mode: 'stall', port, first: body.subarray(0, 400).toString('latin1'),
      head: head('POST', '/api/books', { Authorization: `Bearer ${alice.token}`, 'Content-Type': multipartType(), 'Content-Length': String(body.length) }),
    })));
    expect(stalled.map((s) => s.status)).toEqual(Array(12).fill(408));
    // The staged files go once each request is destroyed, a moment after its 408 (a server that never ends
    // the body keeps them, open, for ever: the deadline below is reached only by that server).
    const deadline = performance.now() + DEADLINE_MS;
    let staged = (await storedFiles(t)).tmp;
    while (staged.length > 0 && performance.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      staged = (await storedFiles(t)).tmp;
    }
    expect(staged).toEqual([]);
    expect((await storedFiles(t)).books).toEqual([]);
  });

  it('keeps a slow but steady upload going past several idle periods, to its 201', async () => {
    const body = multipart([filePart('Steady - Upload.txt', 'a steady upload\n'.repeat(120))]);
    const seen = await run({
      mode: 'steady', port, body: body.toString('base64'), chunk: Math.ceil(body.length / 30), everyMs: 150,
      head: head('POST', '/api/books', { Authorization: `Bearer ${alice.token}`, 'Content-Type': multipartType(), 'Content-Length': String(body.length), Connection: 'close' }),
    });
    expect(seen, seen.body).toMatchObject({ cut: true, status: 201 });
    expect(JSON.parse(seen.body ?? '{}')).toMatchObject({ title: 'Upload', authors: ['Steady'] });
  });
});

describe('MAX_CONNECTIONS_PER_ADDRESS', { timeout: 40_000 }, () => {
  it('closes a connection beyond the cap from one address at once, while another address connects, and admits it again once one closes', async () => {
    const { server, port } = await serve(t, { maxConnectionsPerAddress: 6 });
    const holder = await hold({ port, count: 6, head: 'GET /healthz HTTP/1.1\r\nHost: held\r\n' });
    try {
      const probe = (from: string) => run({ mode: 'stall', port, from, head: head('GET', '/healthz', { Connection: 'close' }), first: '' });
      expect(await probe('127.0.0.1')).toMatchObject({ cut: true, status: null });
      expect(await probe('127.0.0.2')).toMatchObject({ cut: true, status: 200 });
      holder.kill();
      await once(holder, 'exit');
      let again: Seen = { cut: false };
      // The server learns of the closes on its own loop; ask until it has (each try is answered at once either way).
      for (let i = 0; i < 50 && again.status !== 200; i++) again = await probe('127.0.0.1');
      expect(again).toMatchObject({ cut: true, status: 200 });
    } finally {
      holder.kill();
      await stopServer(server, 0);
    }
  });

  it('behind a proxy, counts the forwarded address\'s requests in flight: one more is 429 too_many_connections', async () => {
    const proxied = await startTestApp({ TRUST_PROXY: '1', MAX_CONNECTIONS_PER_ADDRESS: '3' });
    const { server, port } = await serve(proxied, { trustProxy: 1 });
    const stalled = head('POST', '/api/auth/login', { 'Content-Type': 'application/json', 'Content-Length': '1000', 'X-Forwarded-For': '203.0.113.5' });
    const holder = await hold({ port, count: 3, head: `${stalled}{"user` });
    try {
      const ask = (address: string) => run({ mode: 'stall', port, head: head('GET', '/healthz', { 'X-Forwarded-For': address, Connection: 'close' }), first: '' });
      const refused = await ask('203.0.113.5');
      expect(refused).toMatchObject({ cut: true, status: 429 });
      expect(JSON.parse(refused.body ?? '{}')).toMatchObject({ code: 'too_many_connections' });
      expect(await ask('203.0.113.6')).toMatchObject({ cut: true, status: 200 });
    } finally {
      holder.kill();
      await stopServer(server, 0);
      await proxied.close();
    }
  });
});
