import request from 'supertest';
import { koreaderHeaders } from '../../support/koreader.js';
import { bearer, registerUser, type Session } from '../../support/test-app.js';
import { attack, verdict, type Attack, type Seen } from '../support/outcome.js';
import { otherApp, type World } from '../support/world.js';

const DOC = '0f1e2d3c4b5a69788796a5b4c3d2e1f0';
/** Exactly this, no parameter: KOReader 2025.04 decodes no other. */
const KOSYNC_TYPE = /^application\/json$/;
const push = { document: DOC, progress: '/body/DocFragment[4]/body/p[2]/text().0', percentage: 0.5, device: 'Kobo', device_id: 'K1' };

async function keyFor(w: World, session: Session, body: object = { name: 'kosync attack key' }): Promise<{ id: string; key: string }> {
  const res = await w.api().post('/api/auth/keys').set(bearer(session.token)).send(body);
  if (res.status !== 201) throw new Error(`key: ${res.status} ${res.text}`);
  return res.body;
}

/** KOReader's refusal: 401 with a JSON `message`, under the one media type every KOReader release decodes. */
const refused = (r: Seen): boolean => r.status === 401 && KOSYNC_TYPE.test(String(r.headers['content-type'])) && /"message":/.test(r.text ?? '');

/** The three kosync routes that act, each tried with these credentials. */
async function everyRoute(w: World, username: string, key: string): Promise<Seen[]> {
  const headers = koreaderHeaders(username, key);
  return [
    await w.api().get('/kosync/users/auth').set(headers),
    await w.api().put('/kosync/syncs/progress').set(headers).send(push),
    await w.api().get(`/kosync/syncs/progress/${DOC}`).set(headers),
  ];
}

const SMALL = { maxFailures: 5, windowMs: 15 * 60_000, blockMs: 15 * 60_000, maxBlockMs: 60 * 60_000 };

/** KOReader sync (/kosync): guessing keys, someone else's key, too small a key, revoked, expired and disabled-owner keys, another user's documents. */
export const kosyncAttacks: Attack[] = [
  attack('AUTH-06', 'kosync-brute-force', '7 wrong KOReader keys on one account from 7 addresses: 401 up to the limit, then 429 even for the right key', async () => {
    const t = await otherApp({ LOG_LEVEL: 'silent', TRUST_PROXY: '1' }, { loginPolicies: { account: SMALL, address: { ...SMALL, maxFailures: 100 } } });
    try {
      const owner = await registerUser(t.app, 'koguess');
      const good = (await request(t.app).post('/api/auth/keys').set(bearer(owner.token)).send({ name: 'k' })).body.key as string;
      const seen: request.Response[] = [];
      for (let i = 0; i < 7; i++) {
        seen.push(await request(t.app).get('/kosync/users/auth').set(koreaderHeaders('KOGuess', `stk_guess${i}`)).set('x-forwarded-for', `203.0.113.${i}`));
      }
      const right = await request(t.app).get('/kosync/users/auth').set(koreaderHeaders('koguess', good)).set('x-forwarded-for', '203.0.113.99');
      const safe = seen.slice(0, 5).every(refused) && seen.slice(5).every((r) => r.status === 429 && r.headers['retry-after']) && right.status === 429;
      return verdict([...seen, right], safe);
    } finally {
      await t.close();
    }
  }),
  attack('AC-01', 'kosync-foreign-key', "A's key under B's username and B's under A's: 401 on every kosync route", async (w) => {
    const { key: aliceKey } = await keyFor(w, w.alice);
    const { key: bobKey } = await keyFor(w, w.bob);
    const seen = [...await everyRoute(w, 'bob', aliceKey), ...await everyRoute(w, 'alice', bobKey)];
    return verdict(seen, seen.every(refused));
  }),
  attack('AC-01', 'kosync-foreign-document', "B cannot read or overwrite A's position in a document, whatever its digest", async (w) => {
    const { key: aliceKey } = await keyFor(w, w.alice);
    const { key: bobKey } = await keyFor(w, w.bob);
    const mine = await w.api().put('/kosync/syncs/progress').set(koreaderHeaders('alice', aliceKey)).send({ ...push, progress: 'alice-only' });
    const theirs = await w.api().get(`/kosync/syncs/progress/${DOC}`).set(koreaderHeaders('bob', bobKey));
    const overwrite = await w.api().put('/kosync/syncs/progress').set(koreaderHeaders('bob', bobKey)).send({ ...push, progress: 'bob wrote' });
    const after = await w.api().get(`/kosync/syncs/progress/${DOC}`).set(koreaderHeaders('alice', aliceKey));
    const safe = mine.status === 200 && theirs.status === 200 && theirs.text === '{}' && overwrite.status === 200 && JSON.parse(after.text).progress === 'alice-only';
    return verdict([mine, theirs, overwrite, after], safe);
  }),
  attack('AC-02', 'kosync-scope', 'a key without books:read cannot sign in, push or pull through kosync', async (w) => {
    const { key } = await keyFor(w, w.alice, { name: 'shelves only', permissions: ['shelves:read'] });
    const seen = await everyRoute(w, 'alice', key);
    return verdict(seen, seen.every(refused));
  }),
  attack('TOK-05', 'kosync-revoked-key', 'a revoked key is refused on every kosync route at once', async (w) => {
    const { id, key } = await keyFor(w, w.alice);
    await w.api().delete(`/api/auth/keys/${id}`).set(bearer(w.alice.token)).expect(204);
    const seen = await everyRoute(w, 'alice', key);
    return verdict(seen, seen.every(refused));
  }),
  attack('TOK-03', 'kosync-expired-key', 'a key past its expires_at is refused on every kosync route', async (w) => {
    const { key } = await keyFor(w, w.alice, { name: 'short', expires_at: new Date(w.clock.now().getTime() + 30_000).toISOString() });
    w.clock.advance(31_000);
    const seen = await everyRoute(w, 'alice', key);
    return verdict(seen, seen.every(refused));
  }),
  attack('TOK-05', 'kosync-disabled-owner', "a disabled owner's key is refused on every kosync route", async (w) => {
    const owner = await w.fresh('kodisabled');
    const { key } = await keyFor(w, owner);
    await w.api().patch(`/api/users/${owner.user.id}`).set(bearer(w.admin.token)).send({ disabled: true }).expect(200);
    const seen = await everyRoute(w, owner.user.username, key);
    return verdict(seen, seen.every(refused));
  }),
  attack('IN-01', 'kosync-hostile-push', 'operator objects, unknown fields, over-long values and a 100 KB body: a 4xx JSON refusal, never a 5xx', async (w) => {
    const { key } = await keyFor(w, w.alice);
    const send = (body: unknown) => w.api().put('/kosync/syncs/progress').set(koreaderHeaders('alice', key)).send(body as object);
    const seen = [
      await send({ ...push, document: { $ne: null } }), await send({ ...push, percentage: { $gt: 0 } }), await send({ ...push, user_id: 'bob' }),
      await send({ ...push, progress: 'p'.repeat(5000) }), await send({ ...push, metadata: 'm'.repeat(100 * 1024) }),
      await w.api().get(`/kosync/syncs/progress/${'%24ne'.repeat(100)}`).set(koreaderHeaders('alice', key)),
    ];
    return verdict(seen, seen.every((r) => r.status >= 400 && r.status < 500 && /"message":/.test(r.text ?? '')));
  }),
];
