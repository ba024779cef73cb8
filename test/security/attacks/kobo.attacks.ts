import request from 'supertest';
import { buildEpub } from '../../support/fixtures/index.js';
import { KOBO_HEADERS } from '../../support/kobo.js';
import { bearer, registerUser, type Session } from '../../support/test-app.js';
import { attack, isProblem, verdict, type Attack, type Seen } from '../support/outcome.js';
import { otherApp, type World } from '../support/world.js';

let hardware = 0;
/** Kobo headers with an e-reader id of its own, so one attack's refusals never throttle another's device. */
const kobo = () => ({ ...KOBO_HEADERS, 'x-kobo-deviceid': `attack${(hardware += 1)}` });

async function deviceOf(w: World, session: Session, body: object = { name: 'attack kobo' }): Promise<{ id: string; base: string }> {
  const res = await w.api().post('/api/auth/kobo').set(bearer(session.token)).send(body);
  if (res.status !== 201) throw new Error(`kobo: ${res.status} ${res.text}`);
  return { id: res.body.id, base: new URL(res.body.url).pathname };
}

/** The Kobo routes that act, each tried under this sync URL path. */
async function everyRoute(w: World, base: string, bookId: string): Promise<Seen[]> {
  const call = (method: 'get' | 'put' | 'post' | 'delete', path: string) => w.api()[method](`${base}${path}`).set(kobo());
  return [
    await call('get', '/v1/initialization'), await call('get', '/v1/library/sync'), await call('get', `/v1/library/${bookId}/metadata`),
    await call('get', `/v1/library/${bookId}/state`), await call('put', `/v1/library/${bookId}/state`).send({ ReadingStates: [{ CurrentBookmark: { ProgressPercent: 50 } }] }),
    await call('get', `/v1/books/${bookId}/file`), await call('post', '/v1/library/tags').send({ Name: 'x', Items: [] }), await call('get', '/v1/user/profile'),
  ];
}

const SMALL = { maxFailures: 5, windowMs: 15 * 60_000, blockMs: 15 * 60_000, maxBlockMs: 60 * 60_000 };

/** Kobo sync URLs (/kobo/{secret}): guessing, revoked and dead-owner URLs, other people's things, hostile bodies and tokens. */
export const koboAttacks: Attack[] = [
  attack('AUTH-06', 'kobo-url-brute-force', '7 guessed sync URLs from one address: 401 up to the limit, then 429 even for a real URL from there', async () => {
    const t = await otherApp({ LOG_LEVEL: 'silent', TRUST_PROXY: '1' }, { loginPolicies: { account: { ...SMALL, maxFailures: 100 }, address: SMALL } });
    try {
      const owner = await registerUser(t.app, 'koboguess');
      const real = new URL((await request(t.app).post('/api/auth/kobo').set(bearer(owner.token)).send({ name: 'k' })).body.url).pathname;
      const seen: request.Response[] = [];
      for (let i = 0; i < 7; i++) {
        seen.push(await request(t.app).get(`/kobo/${String(i).padStart(43, 'G')}/v1/library/sync`).set('x-forwarded-for', '203.0.113.7'));
      }
      const right = await request(t.app).get(`${real}/v1/library/sync`).set('x-forwarded-for', '203.0.113.7');
      const other = await request(t.app).get(`${real}/v1/library/sync`).set('x-forwarded-for', '203.0.113.8');
      const safe = seen.slice(0, 5).every((r) => isProblem(r, 401)) && seen.slice(5).every((r) => r.status === 429 && r.headers['retry-after'])
        && right.status === 429 && other.status === 200;
      return verdict([...seen, right, other], safe);
    } finally {
      await t.close();
    }
  }),
  attack('TOK-05', 'kobo-revoked-url', 'a deleted device is refused on every Kobo route at once', async (w) => {
    const device = await deviceOf(w, w.alice);
    await w.api().delete(`/api/auth/kobo/${device.id}`).set(bearer(w.alice.token)).expect(204);
    const seen = await everyRoute(w, device.base, w.ids.aliceBook);
    return verdict(seen, seen.every((r) => r.status === 401));
  }),
  attack('TOK-05', 'kobo-disabled-owner', "a disabled owner's sync URL is refused on every Kobo route", async (w) => {
    const owner = await w.fresh('kobodisabled');
    const device = await deviceOf(w, owner);
    await w.api().patch(`/api/users/${owner.user.id}`).set(bearer(w.admin.token)).send({ disabled: true }).expect(200);
    const seen = await everyRoute(w, device.base, w.ids.aliceBook);
    return verdict(seen, seen.every((r) => r.status === 401));
  }),
  attack('TOK-02', 'kobo-url-shapes', 'secrets that are too short, too long, or carry path tricks: 401 or 404, never a sync', async (w) => {
    const paths = ['/kobo/x/v1/library/sync', `/kobo/${'A'.repeat(44)}/v1/library/sync`, '/kobo/%2e%2e/v1/library/sync', '/kobo//v1/library/sync',
      `/KOBO/${'A'.repeat(43)}/v1/library/sync`, '/kobo'];
    const seen = await Promise.all(paths.map((p) => w.api().get(p).set(kobo())));
    return verdict(seen, seen.every((r) => r.status === 401 || r.status === 404));
  }),
  attack('AC-01', 'kobo-foreign-device', "B cannot list or delete A's Kobo devices, and B's Kobo renames or deletes none of A's shelves", async (w) => {
    const alices = await deviceOf(w, w.alice);
    const bobs = await deviceOf(w, w.bob);
    const before = await w.snapshot();
    const seen = [
      await w.api().delete(`/api/auth/kobo/${alices.id}`).set(bearer(w.bob.token)),
      await w.api().put(`${bobs.base}/v1/library/tags/${w.ids.alicePrivateShelf}`).set(kobo()).send({ Name: 'mine now' }),
      await w.api().delete(`${bobs.base}/v1/library/tags/${w.ids.alicePublicShelf}`).set(kobo()),
      await w.api().post(`${bobs.base}/v1/library/tags/${w.ids.alicePublicShelf}/items`).set(kobo()).send({ Items: [{ Type: 'ProductRevisionTagItem', RevisionId: w.ids.bobBook }] }),
    ];
    const listed = await w.api().get('/api/auth/kobo').set(bearer(w.bob.token));
    const safe = seen[0]!.status === 404 && seen.slice(1).every((r) => r.status === 403 || r.status === 404)
      && !JSON.stringify(listed.body).includes(alices.id) && (await w.snapshot()) === before;
    return verdict(seen, safe);
  }),
  attack('AC-01', 'kobo-foreign-progress', "B's Kobo reads and writes only B's reading state, never A's", async (w) => {
    const bobs = await deviceOf(w, w.bob);
    // An EPUB, a book Bob's Kobo gets (the world's .txt books are outside every Kobo's scope: 404).
    const book = (await w.api().post('/api/books').set(bearer(w.alice.token)).attach('file', await buildEpub({ title: 'Alice on a Kobo' }), 'alice.epub').expect(201)).body.id as string;
    await w.api().put(`/api/books/${book}/progress`).set(bearer(w.alice.token)).send({ percentage: 0.9, locator: 'alice-only' }).expect(200);
    const read = await w.api().get(`${bobs.base}/v1/library/${book}/state`).set(kobo());
    const write = await w.api().put(`${bobs.base}/v1/library/${book}/state`).set(kobo()).send({ ReadingStates: [{ CurrentBookmark: { ProgressPercent: 5 } }] });
    const alice = await w.api().get(`/api/books/${book}/progress`).set(bearer(w.alice.token));
    const safe = read.status === 200 && read.body[0].StatusInfo.Status === 'ReadyToRead' && write.status === 200
      && alice.body.percentage === 0.9 && alice.body.locator === 'alice-only';
    return verdict([read, write, alice], safe);
  }),
  attack('IN-01', 'kobo-hostile-bodies', 'operator objects, wrong types, huge and malformed bodies on state and tag routes: 4xx, never 5xx, nothing written', async (w) => {
    const device = await deviceOf(w, w.alice);
    const state = (body: unknown) => w.api().put(`${device.base}/v1/library/${w.ids.aliceBook}/state`).set(kobo()).set('content-type', 'application/json').send(body as object);
    const seen = [
      await state({ ReadingStates: [{ CurrentBookmark: { ProgressPercent: { $gt: 0 } } }] }), await state({ ReadingStates: [] }),
      await state({ ReadingStates: [{ CurrentBookmark: { ProgressPercent: 500 } }] }), await state({ ReadingStates: 'x'.repeat(70 * 1024) }),
      await w.api().put(`${device.base}/v1/library/${w.ids.aliceBook}/state`).set(kobo()).set('content-type', 'application/json').send('{"ReadingStates": ['),
      await w.api().post(`${device.base}/v1/library/tags`).set(kobo()).send({ Name: { $ne: null }, Items: [] }),
      await w.api().post(`${device.base}/v1/library/tags`).set(kobo()).send({ Name: 'a\u0000b', Items: [] }),
      await w.api().get(`${device.base}/v1/books/${w.ids.aliceBook}/thumbnail/99999999/1/false/image.jpg`).set(kobo()),
    ];
    const progress = await w.api().get(`/api/books/${w.ids.aliceBook}/progress`).set(bearer(w.alice.token));
    return verdict(seen, seen.every((r) => r.status >= 400 && r.status < 500) && progress.body.percentage !== 5);
  }),
  attack('TOK-01', 'kobo-forged-sync-token', 'a tampered, foreign or garbage x-kobo-synctoken is read as a first sync (never another device\'s cursor, never a 5xx)', async (w) => {
    const device = await deviceOf(w, w.alice);
    const first = await w.api().get(`${device.base}/v1/library/sync`).set(kobo());
    const token = String(first.headers['x-kobo-synctoken']);
    const [prefix, payload, signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ d: device.id, r: [9e9, 9e9, 9e9, 9e9], a: [9e9, 9e9, 9e9, 9e9], e: 0, k: null })).toString('base64url');
    const tries = [`${prefix}.${forged}.${signature}`, `${prefix}.${payload}.${'A'.repeat(43)}`, 'e30=', 'a.b.c.d', '%00'.repeat(100), 'x'.repeat(5000)];
    const seen = await Promise.all(tries.map((tk) => w.api().get(`${device.base}/v1/library/sync`).set(kobo()).set('x-kobo-synctoken', tk)));
    const firstCount = (first.body as unknown[]).length;
    return verdict(seen, seen.every((r) => r.status === 200 && (r.body as unknown[]).length === firstCount));
  }),
];
