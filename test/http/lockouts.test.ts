import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../support/clock.js';
import { koreaderHeaders } from '../support/koreader.js';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';

/**
 * Lockouts cannot be used to lock people out (API.md): the reproduction was 10 wrong KOReader
 * keys for `root`, from anywhere, blocking the admin's right password for up to an hour, with no unlock.
 */
const PASSWORD = 'correct horse battery';
const HOME = '198.51.100.1';
let t: TestApp;
let clock: FakeClock;
let root: Session;
let alice: Session;
beforeEach(async () => {
  clock = new FakeClock();
  t = await startTestApp({ TRUST_PROXY: '1', RATE_LIMIT_PER_MINUTE: '0' }, { clock });
  root = await registerUser(t.app, 'root', PASSWORD);
  alice = await registerUser(t.app, 'alice', PASSWORD);
});
afterEach(() => t.close());

const from = (address: string) => ({ 'X-Forwarded-For': address });
const login = (username: string, address: string, password = PASSWORD) =>
  request(t.app).post('/api/auth/login').set(from(address)).send({ username, password });
const lockedUntil = async (id: string) => (await request(t.app).get(`/api/users/${id}`).set(bearer(root.token))).body.locked_until;

/** Ten wrong KOReader keys for the account, each from an address of its own. */
async function wrongKeys(username: string): Promise<void> {
  for (let i = 0; i < 10; i++) await request(t.app).get('/kosync/users/auth').set(from(`203.0.113.${i + 1}`)).set(koreaderHeaders(username, `stk_guess-${i}`));
}

describe('lockouts that spare their owners', () => {
  it('10 wrong KOReader keys from anywhere block the account elsewhere, but not where its owner signed in', async () => {
    expect((await login('root', HOME)).status).toBe(200);
    await wrongKeys('root');
    expect((await login('root', '192.0.2.77')).status).toBe(429);
    expect((await login('root', HOME)).status).toBe(200);
  });

  it('shows the block\'s end as locked_until to an admin, in the view and the list; null when not blocked', async () => {
    expect(await lockedUntil(alice.user.id)).toBeNull();
    await wrongKeys('alice');
    const until = new Date(clock.now().getTime() + 5 * 60_000).toISOString();
    expect(await lockedUntil(alice.user.id)).toBe(until);
    const list = (await request(t.app).get('/api/users').set(bearer(root.token))).body.items as { id: string; locked_until: string | null }[];
    expect(list.map((u) => [u.id, u.locked_until])).toEqual([[root.user.id, null], [alice.user.id, until]]);
    clock.advance(5 * 60_000);
    expect(await lockedUntil(alice.user.id)).toBeNull();
  });

  it('DELETE /api/users/{id}/lock lifts the block at once (204); only an admin may, and an unknown id is 404', async () => {
    await wrongKeys('alice');
    expect((await login('alice', '192.0.2.77')).status).toBe(429);
    const notAdmin = await request(t.app).delete(`/api/users/${alice.user.id}/lock`).set(bearer(alice.token));
    expect([notAdmin.status, notAdmin.body.code]).toEqual([403, 'permission_denied']);
    expect((await request(t.app).delete('/api/users/nobody/lock').set(bearer(root.token))).status).toBe(404);
    expect((await request(t.app).delete(`/api/users/${alice.user.id}/lock`).set(bearer(root.token))).status).toBe(204);
    expect(await lockedUntil(alice.user.id)).toBeNull();
    expect((await login('alice', '192.0.2.77')).status).toBe(200);
  });
});
