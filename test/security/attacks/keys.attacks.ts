import request from 'supertest';
import { bearer, registerUser, type Session } from '../../support/test-app.js';
import { attack, isProblem, verdict, type Attack, type Seen } from '../support/outcome.js';
import { otherApp, type World } from '../support/world.js';

/** One request to each protected route family. */
const FAMILIES = (w: World) => ['/api/auth/me', '/api/books', `/api/books/${w.ids.bobBook}`, '/api/shelves', '/api/auth/keys'];

async function refusedEverywhere(w: World, secret: string): Promise<{ seen: Seen[]; refused: boolean }> {
  const seen: Seen[] = [];
  for (const path of FAMILIES(w)) seen.push(await w.api().get(path).set(bearer(secret)));
  return { seen, refused: seen.every((r) => isProblem(r, 401) && (r as { body?: { code?: string } }).body?.code === 'invalid_token') };
}

async function keyFor(w: World, session: Session, body: object = { name: 'attack key' }): Promise<{ id: string; key: string }> {
  const res = await w.api().post('/api/auth/keys').set(bearer(session.token)).send(body);
  if (res.status !== 201) throw new Error(`key: ${res.status} ${res.text}`);
  return res.body;
}

const SMALL = { maxFailures: 5, windowMs: 15 * 60_000, blockMs: 15 * 60_000, maxBlockMs: 60 * 60_000 };

/** Personal API keys: guessing, someone else's key, scope escalation, revoked, expired and disabled-owner keys. */
export const keyAttacks: Attack[] = [
  attack('AUTH-06', 'key-brute-force', '12 wrong stk_ keys from one address: 401 up to the limit, then 429 even for the right key', async () => {
    const t = await otherApp({ LOG_LEVEL: 'silent' }, { loginPolicies: { account: SMALL, address: SMALL } });
    try {
      const owner = await registerUser(t.app, 'brute');
      const good = (await request(t.app).post('/api/auth/keys').set(bearer(owner.token)).send({ name: 'k' })).body.key as string;
      const seen: request.Response[] = [];
      for (let i = 0; i < 12; i++) seen.push(await request(t.app).get('/api/auth/me').set(bearer(`stk_${String(i).padStart(43, 'A')}`)));
      const right = await request(t.app).get('/api/auth/me').set(bearer(good));
      const opds = await request(t.app).get('/opds').auth('brute', good);
      const refused = seen.slice(0, 5).every((r) => isProblem(r, 401)) && seen.slice(5).every((r) => isProblem(r, 429) && r.headers['retry-after']);
      return verdict([...seen, right, opds], refused && isProblem(right, 429) && opds.status === 429);
    } finally {
      await t.close();
    }
  }),
  attack('AC-01', 'key-foreign-revoke', "B revokes A's key through his own route: 404, and A's key still works", async (w) => {
    const { id, key } = await keyFor(w, w.alice);
    const res = await w.api().delete(`/api/auth/keys/${id}`).set(bearer(w.bob.token));
    const still = await w.api().get('/api/auth/me').set(bearer(key));
    return verdict([res, still], isProblem(res, 404) && still.status === 200 && still.body.id === w.alice.user.id);
  }),
  attack('AC-01', 'key-foreign-opds', "A's key under B's username (and B's under A's) on OPDS Basic: 401", async (w) => {
    const { key } = await keyFor(w, w.alice);
    const seen = [await w.api().get('/opds').auth('bob', key), await w.api().get('/opds').auth('secadmin', key)];
    return verdict(seen, seen.every((r) => r.status === 401 && /^Basic/.test(String(r.headers['www-authenticate']))));
  }),
  attack('AC-02', 'key-scope-escalation', 'a books:read key cannot write, mint a key, change the password or promote its owner', async (w) => {
    const { key } = await keyFor(w, w.bob, { name: 'read only', permissions: ['books:read'] });
    const seen = [
      await w.api().post('/api/shelves').set(bearer(key)).send({ name: 'escalated' }),
      await w.api().post('/api/auth/keys').set(bearer(key)).send({ name: 'child', permissions: ['books:read'] }),
      await w.api().put('/api/auth/password').set(bearer(key)).send({ current_password: 'correct horse battery', new_password: 'taken over!!' }),
      await w.api().patch(`/api/users/${w.bob.user.id}`).set(bearer(key)).send({ roles: ['admin'] }),
      await w.api().get('/api/shelves').set(bearer(key)),
    ];
    return verdict(seen, seen.every((r) => isProblem(r, 403)));
  }),
  attack('AC-02', 'key-admin-scope-by-user', 'an ordinary user asks for an admin:* key: 403, nothing stored', async (w) => {
    const before = (await w.api().get('/api/auth/keys').set(bearer(w.bob.token))).body.total;
    const res = await w.api().post('/api/auth/keys').set(bearer(w.bob.token)).send({ name: 'root', permissions: ['admin:*'] });
    const after = (await w.api().get('/api/auth/keys').set(bearer(w.bob.token))).body.total;
    return verdict(res, isProblem(res, 403) && before === after);
  }),
  attack('TOK-05', 'key-revoked', 'a revoked key is refused on every route family at once', async (w) => {
    const { id, key } = await keyFor(w, w.alice);
    await w.api().delete(`/api/auth/keys/${id}`).set(bearer(w.alice.token)).expect(204);
    const { seen, refused } = await refusedEverywhere(w, key);
    return verdict(seen, refused);
  }),
  attack('TOK-05', 'key-disabled-owner', "a disabled owner's key is refused, and stays refused after re-enabling", async (w) => {
    const owner = await w.fresh('keyowner');
    const { key } = await keyFor(w, owner);
    await w.api().patch(`/api/users/${owner.user.id}`).set(bearer(w.admin.token)).send({ disabled: true }).expect(200);
    const off = await refusedEverywhere(w, key);
    await w.api().patch(`/api/users/${owner.user.id}`).set(bearer(w.admin.token)).send({ disabled: false }).expect(200);
    const on = await refusedEverywhere(w, key);
    return verdict([...off.seen, ...on.seen], off.refused && on.refused);
  }),
  attack('TOK-03', 'key-expired', 'a key past its expires_at is refused everywhere', async (w) => {
    const expiresAt = new Date(w.clock.now().getTime() + 30_000).toISOString();
    const { key } = await keyFor(w, w.alice, { name: 'short lived', expires_at: expiresAt });
    w.clock.advance(31_000);
    const { seen, refused } = await refusedEverywhere(w, key);
    return verdict(seen, refused);
  }),
  attack('TOK-06', 'key-owner-demoted', 'a key loses a permission the moment its owner does', async (w) => {
    const owner = await w.fresh('demoted');
    const { key } = await keyFor(w, owner);
    const before = await w.api().post('/api/shelves').set(bearer(key)).send({ name: 'while a user' });
    await w.api().patch(`/api/users/${owner.user.id}`).set(bearer(w.admin.token)).send({ roles: ['reader'] }).expect(200);
    const after = await w.api().post('/api/shelves').set(bearer(key)).send({ name: 'as a reader' });
    return verdict([before, after], before.status === 201 && isProblem(after, 403));
  }),
  attack('TOK-07', 'key-malformed', 'malformed and oversized stk_ bearers: a generic 401, never a 5xx', async (w) => {
    const seen: Seen[] = [];
    for (const token of ['stk_', 'stk_x', `stk_${'A'.repeat(5000)}`, 'stk_{"$ne":null}', 'STK_AAAA', 'stk_../../etc/passwd']) {
      seen.push(await w.api().get('/api/auth/me').set('Authorization', `Bearer ${token}`));
    }
    return verdict(seen, seen.every((r) => isProblem(r, [401, 431])));
  }),
  attack('AC-04', 'key-list-no-secret', 'key lists (own and admin) carry neither the secret nor its digest', async (w) => {
    const { key } = await keyFor(w, w.alice);
    const seen = [await w.api().get('/api/auth/keys').set(bearer(w.alice.token)), await w.api().get(`/api/users/${w.alice.user.id}/keys`).set(bearer(w.admin.token))];
    const leaked = seen.some((r) => r.text.includes(key.slice(12)) || /"(key|lookup)"\s*:/.test(r.text));
    return verdict(seen, seen.every((r) => r.status === 200) && !leaked);
  }),
];
