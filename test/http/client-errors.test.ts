import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer } from '../../src/adapters/http/http-server.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let port: number;
let server: ReturnType<typeof createHttpServer>;

beforeAll(async () => {
  t = await startTestApp();
  server = createHttpServer(t.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await t.close();
});

/** The status a client reads (or its socket error code) for a GET with an Authorization header of `size` bytes. */
function statusFor(size: number): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request({ port, host: '127.0.0.1', path: '/api/auth/me', headers: { authorization: `Bearer ${'A'.repeat(size)}` } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    req.end();
  });
}

describe('requests Node refuses before routing', () => {
  // Node 24 destroys the socket right after its own 431; a client still writing its headers then read a reset.
  it('answers 50 oversized headers (20 to 94 KB) with a 431 the client can read', async () => {
    const seen: (number | string)[] = [];
    for (let i = 0; i < 50; i++) seen.push(await statusFor(20_000 + i * 1500));
    expect(seen.filter((s) => s !== 431)).toEqual([]);
  });

  it('still serves a normal request on a new connection afterwards', async () => {
    expect(await statusFor(10)).toBe(401);
  });
});

describe('request targets that are no path', () => {
  /** Status and body of one request with this raw target (`GET * HTTP/1.1` reaches the app: Node lets it through). */
  const answerTo = (method: string, path: string) => new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', method, path }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });

  it('answers 404 route_not_found to `*` targets with every method, never a 500', async () => {
    const answers: string[] = [];
    for (const target of ['*', '*x', '**']) {
      for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        const { status, body } = await answerTo(method, target);
        answers.push(`${method} ${target} ${status}${method === 'HEAD' ? '' : ` ${(JSON.parse(body) as { code: string }).code}`}`);
      }
    }
    expect(answers.filter((a) => !/ 404( route_not_found)?$/.test(a))).toEqual([]);
    expect(answers).toHaveLength(18);
  });
});
