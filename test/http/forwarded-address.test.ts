import type { Server } from 'node:http';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdRequest, type HeldRequest } from '../security/support/held-request.js';
import { closeServer, listen } from '../security/support/world.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Behind TRUST_PROXY hops the client address comes from X-Forwarded-For, which is whatever a client
 * sends (outside review, F5). Every spelling of one address is one budget (here the in-flight cap,
 * MAX_CONNECTIONS_PER_ADDRESS=3), and text that is no address counts as the connection's own address,
 * the proxy's: never a budget of its own, never written raw into the log.
 */
const CAP = 3;
const SPELLINGS = ['9.9.9.9:1234', '[9.9.9.9]', '::ffff:909:909', '0:0:0:0:0:ffff:9.9.9.9', '::ffff:9.9.9.9', ' 9.9.9.9'];
const NOT_ADDRESSES = ['09.9.9.9', '1.2.3.4\u0085', 'unknown', '"><script>', 'x'.repeat(300)];

const lines: string[] = [];
let t: TestApp;
let server: Server;
let url: string;

beforeAll(async () => {
  t = await startTestApp({ TRUST_PROXY: '1', MAX_CONNECTIONS_PER_ADDRESS: String(CAP), RATE_LIMIT_PER_MINUTE: '0' }, {}, lines);
  ({ server, url } = await listen(t));
});
afterAll(async () => {
  await closeServer(server);
  await t.close();
});

const ask = (forwarded?: string) => {
  const r = request(url).get('/healthz');
  return (forwarded === undefined ? r : r.set('X-Forwarded-For', forwarded)).then((res) => res.status);
};

/** Holds `CAP` login requests mid-body from the given forwarded addresses, once the server counts them all. */
async function holdCap(forwarded: readonly (string | undefined)[], probe: string | undefined): Promise<HeldRequest[]> {
  const body = Buffer.from(JSON.stringify({ username: 'nobody', password: 'not a password at all' }));
  const held = await Promise.all(forwarded.map((f) =>
    holdRequest(url, 'POST', '/api/auth/login', { 'Content-Type': 'application/json', ...(f === undefined ? {} : { 'X-Forwarded-For': f }) }, body)));
  // The held requests reach the cap in their own time: ask until the probe is refused (not a time bound).
  for (let i = 0; i < 1000 && (await ask(probe)) !== 429; i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
  return held;
}

describe('the forwarded client address behind TRUST_PROXY', () => {
  it('counts every spelling of one IPv4 address in one budget', async () => {
    const held = await holdCap(Array<string>(CAP).fill('9.9.9.9'), '9.9.9.9');
    try {
      expect(Object.fromEntries(await Promise.all(SPELLINGS.map(async (s) => [s, await ask(s)])))).toEqual(Object.fromEntries(SPELLINGS.map((s) => [s, 429])));
      expect(await ask('9.9.9.8')).toBe(200);
    } finally {
      await Promise.all(held.map((h) => h.finish()));
    }
  });

  it('counts text that is no address as the proxy\'s own address, one budget, and logs no control character', async () => {
    const held = await holdCap(NOT_ADDRESSES.slice(0, CAP), undefined);
    try {
      expect(Object.fromEntries(await Promise.all(NOT_ADDRESSES.map(async (s) => [s.slice(0, 20), await ask(s)]))))
        .toEqual(Object.fromEntries(NOT_ADDRESSES.map((s) => [s.slice(0, 20), 429])));
      expect(await ask('9.9.9.8')).toBe(200);
    } finally {
      await Promise.all(held.map((h) => h.finish()));
    }
    const addresses = new Set(lines.map((l) => JSON.parse(l) as { msg?: string; address?: string }).filter((r) => r.msg === 'request').map((r) => r.address));
    expect(addresses).toContain('127.0.0.1');
    expect([...addresses].filter((a) => !['9.9.9.9', '9.9.9.8', '127.0.0.1'].includes(a ?? ''))).toEqual([]);
    expect(lines.filter((l) => /[\u0000-\u001f\u007f-\u009f]/.test(l.trimEnd()))).toEqual([]);
  });
});
