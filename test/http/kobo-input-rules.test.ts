import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upload } from '../support/books.js';
import { buildEpub } from '../support/fixtures/index.js';
import { addKobo, koboCall, type KoboDeviceUrl } from '../support/kobo.js';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';

/**
 * Issue 22's rules on the Kobo surface (API.md, "Authority, timing and input rules"): one spelling per
 * path, the text rule on every JSON body the device sends, the name rule on device and collection
 * names, and one auth event per sync URL check (never the secret). Held bodies: test/security/held.test.ts.
 */
let t: TestApp;
let lines: string[];
let alice: Session;
let device: KoboDeviceUrl;
let bookId: string;
let shelfId: string;
beforeAll(async () => {
  lines = [];
  t = await startTestApp({ RATE_LIMIT_PER_MINUTE: '0' }, {}, lines);
  alice = await registerUser(t.app, 'alice');
  device = await addKobo(t.app, alice);
  bookId = (await upload(t.app, alice, await buildEpub({ title: 'Kobo rules' }), 'Kobo - Rules.epub')).body.id; // a format the Kobo gets
  shelfId = (await request(t.app).post('/api/shelves').set(bearer(alice.token)).send({ name: 'Mine' })).body.id;
});
afterAll(() => t.close());

const progress = async () => (await request(t.app).get(`/api/books/${bookId}/progress`).set(bearer(alice.token))).body as { percentage: number; locator: string | null };
const shelves = async () => ((await request(t.app).get('/api/shelves').set(bearer(alice.token))).body.items as { name: string }[]).map((s) => s.name).sort();
const state = (percent: number, location: Record<string, unknown> = { Type: 'KoboSpan', Value: 'kobo.1.1', Source: 'OEBPS/ch1.xhtml' }) =>
  ({ ReadingStates: [{ CurrentBookmark: { ProgressPercent: percent, Location: location }, StatusInfo: { Status: 'Reading' } }] });

describe('Kobo sync URLs: one spelling per path', () => {
  it('answers 404 route_not_found to /KOBO and /Kobo, and never stores a write sent under another case of the path', async () => {
    const secret = device.base.slice('/kobo/'.length);
    for (const prefix of ['/KOBO', '/Kobo']) {
      const res = await request(t.app).get(`${prefix}/${secret}/v1/library/sync`);
      expect([res.status, res.body.code], prefix).toEqual([404, 'route_not_found']);
    }
    const before = await progress();
    for (const path of [`/V1/library/${bookId}/state`, `/v1/Library/${bookId}/state`, `/v1/library/${bookId}/State`]) {
      await koboCall(t.app, device, 'put', path).send(state(90));
    }
    for (const path of ['/v1/library/TAGS', '/V1/library/tags']) await koboCall(t.app, device, 'post', path).send({ Name: `Spelled ${path}` });
    expect(await progress()).toEqual(before);
    expect(await shelves()).toEqual(['Mine']);
  });
});

describe('Kobo bodies: the text rule and the name rule', () => {
  it('refuses control characters anywhere in a reading state: 422 validation_failed, nothing stored', async () => {
    const before = await progress();
    for (const bad of ['\u0000', '\u001b[2J', '\u007f', '\u0085']) {
      const res = await koboCall(t.app, device, 'put', `/v1/library/${bookId}/state`).send(state(55, { Type: 'KoboSpan', Value: `kobo.${bad}`, Source: 'a.xhtml' }));
      expect([res.status, res.body.code], JSON.stringify(bad)).toEqual([422, 'validation_failed']);
    }
    expect(await progress()).toEqual(before);
    expect((await koboCall(t.app, device, 'put', `/v1/library/${bookId}/state`).send(state(55))).status).toBe(200);
    expect((await progress()).percentage).toBe(0.55);
  });

  it('refuses collection names with control characters, tabs or line breaks: 422, no shelf made or renamed', async () => {
    for (const bad of ['\u0000', '\t', '\n', '\u2028', '\u009b2J']) {
      const made = await koboCall(t.app, device, 'post', '/v1/library/tags').send({ Name: `Tag${bad}x`, Items: [] });
      expect([made.status, made.body.code], JSON.stringify(bad)).toEqual([422, 'validation_failed']);
      const renamed = await koboCall(t.app, device, 'put', `/v1/library/tags/${shelfId}`).send({ Name: `Tag${bad}x` });
      expect([renamed.status, renamed.body.code], JSON.stringify(bad)).toEqual([422, 'validation_failed']);
    }
    expect(await shelves()).toEqual(['Mine']);
  });

  it('refuses device names with control characters, tabs, line breaks or U+2028 (one name rule): 422, no device added', async () => {
    for (const bad of ['\u0000', '\t', '\r\n', '\u2028', '\u2029', '\u0085']) {
      const res = await request(t.app).post('/api/auth/kobo').set(bearer(alice.token)).send({ name: `Kobo${bad}Libra` });
      expect([res.status, res.body.code], JSON.stringify(bad)).toEqual([422, 'validation_failed']);
    }
    expect((await request(t.app).get('/api/auth/kobo').set(bearer(alice.token))).body.items).toHaveLength(1);
  });
});

describe('Kobo sync URL checks are auth events', () => {
  it('writes auth_succeeded and auth_failed with method kobo_url, the address and the owner when known, never the secret', async () => {
    lines.length = 0;
    const secret = device.base.slice('/kobo/'.length);
    await koboCall(t.app, device, 'get', '/v1/initialization').expect(200);
    await request(t.app).get(`/kobo/${'x'.repeat(43)}/v1/initialization`).expect(401);
    const events = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((e) => e['method'] === 'kobo_url');
    expect(events.map((e) => [e['event'], e['user_id'] ?? null])).toEqual([['auth_succeeded', alice.user.id], ['auth_failed', null]]);
    expect(events.every((e) => typeof e['address'] === 'string')).toBe(true);
    expect(lines.join('\n')).not.toContain(secret);
  });
});
