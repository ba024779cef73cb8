import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { as } from '../support/acting-as.js';
import { FakeClock, TEST_NOW } from '../support/clock.js';
import { decidePull, koreaderHeaders, type ReaderState } from '../support/koreader.js';
import { signInShows, SPORE_JSON_RULES, throughClient, type KosyncMethod, type SporeJsonRule } from '../support/koreader-client.js';
import { registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';

/*
 * Stacks' kosync answers replayed through each KOReader release's client (support/koreader-client.ts):
 * the JSON middleware's decoding rule of that release, lua-Spore's expected_status check, KOSyncClient's
 * success test, then what main.lua shows or decides.
 */
const DOC = '3b3c9ce2a5e1d2c4b5a6f7e8d9c0b1a2';
const SECONDS = (d: Date) => Math.floor(d.getTime() / 1000);

describe('KOReader releases read every kosync answer', () => {
  let t: TestApp;
  let alice: Session;
  let key: string;
  let seen: string[];

  beforeEach(async () => {
    t = await startTestApp({}, { clock: new FakeClock() });
    await registerUser(t.app, 'admin');
    alice = await registerUser(t.app, 'alice');
    key = (await as(t.app, alice).post('/api/auth/keys', { name: 'kobo' })).body.key;
    seen = [];
  });
  afterEach(() => t.close());

  /** One kosync call as KOReader makes it, through the rule's client. */
  async function call(method: KosyncMethod, rule: SporeJsonRule, password = key, document = DOC, push?: object) {
    const headers = koreaderHeaders('alice', password);
    const res = method === 'register'
      ? await request(t.app).post('/kosync/users/create').set({ accept: headers.accept }).send({ username: 'alice', password: headers['x-auth-key'] })
      : method === 'authorize'
        ? await request(t.app).get('/kosync/users/auth').set(headers)
        : method === 'update_progress'
          ? await request(t.app).put('/kosync/syncs/progress').set(headers).send(push ?? {})
          : await request(t.app).get(`/kosync/syncs/progress/${document}`).set(headers);
    seen.push(res.headers['content-type'] as string);
    return { status: res.status, result: throughClient(method, res.status, res.headers['content-type'], res.text, rule) };
  }

  describe.each(SPORE_JSON_RULES)('KOReader $release (lua-Spore $spore)', (rule) => {
    const phone = (): ReaderState => ({ model: 'Android', deviceId: 'PHONE-1', progress: '/body/DocFragment[1]/body/p[1]/text().0', percentage: 0.01, lastPageTurn: SECONDS(TEST_NOW) - 3600 });

    it('logs in with an API key, pushes, and a second device pulls the position (no "No progress found")', async () => {
      expect(signInShows('authorize', (await call('authorize', rule)).result)).toBe('Logged in to KOReader server.');
      const pushed = await call('update_progress', rule, key, DOC, {
        document: DOC, progress: '/body/DocFragment[9]/body/p[4]/text().2', percentage: 0.42, device: 'Kobo_spaBW', device_id: 'KOBO-1',
      });
      expect(pushed.result).toMatchObject({ ok: true, body: { document: DOC, timestamp: SECONDS(TEST_NOW) } });
      const pulled = await call('get_progress', rule);
      const body = pulled.result.body as Record<string, unknown>;
      expect(decidePull(phone(), pulled.result.ok, body, true)).toEqual({ kind: 'go-to', progress: '/body/DocFragment[9]/body/p[4]/text().2' });
      expect(decidePull(phone(), pulled.result.ok, body, false)).toEqual({ kind: 'prompt-go-to', progress: '/body/DocFragment[9]/body/p[4]/text().2' });
      expect(seen.every((type) => type === 'application/json')).toBe(true);
    });

    it('says "No progress found" only when there is none', async () => {
      const pulled = await call('get_progress', rule, key, 'ffffffffffffffffffffffffffffffff');
      expect(decidePull(phone(), pulled.result.ok, pulled.result.body as Record<string, unknown>, true)).toEqual({ kind: 'no-progress' });
    });

    it('shows the reader-facing message of each refusal it reads: a wrong key, a key that may not read books, registration', async () => {
      expect(signInShows('authorize', (await call('authorize', rule, 'stk_wrong')).result)).toMatch(/^Wrong username or key\. /);
      const shelvesOnly = (await as(t.app, alice).post('/api/auth/keys', { name: 'shelves', permissions: ['shelves:read'] })).body.key;
      expect(signInShows('authorize', (await call('authorize', rule, shelvesOnly)).result)).toMatch(/may not read books/);
      expect(signInShows('register', (await call('register', rule)).result)).toMatch(/^Accounts are made in Stacks\./);
      const refusedPull = await call('get_progress', rule, 'stk_wrong');
      expect([refusedPull.status, refusedPull.result.ok]).toEqual([401, false]);
      expect(seen.every((type) => type === 'application/json')).toBe(true);
    });
  });

  it('the media type Stacks sent before (a vendor type with a charset) left KOReader 2025.04 – 2025.10 with "No progress found"', () => {
    const old = 'application/vnd.koreader.v1+json; charset=utf-8';
    const body = JSON.stringify({ document: DOC, percentage: 0.42, progress: '/body/p[2]', device: 'Kobo', device_id: 'K', timestamp: 1 });
    const shows = SPORE_JSON_RULES.map((rule) => {
      const { ok, body: read } = throughClient('get_progress', 200, old, body, rule);
      return [rule.release, typeof read === 'object' ? decidePull({ model: 'x', deviceId: 'y', progress: '', percentage: 0, lastPageTurn: 0 }, ok, read, true).kind : 'no-progress'];
    });
    expect(shows).toEqual([['v2025.04', 'no-progress'], ['v2025.08', 'no-progress'], ['v2025.10', 'no-progress'], ['v2026.03 – v2026.07', 'go-to']]);
  });
});
