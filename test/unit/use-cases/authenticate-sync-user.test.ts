import { beforeEach, describe, expect, it } from 'vitest';
import { actorFor } from '../../../src/domain/actor.js';
import { actsThroughKey } from '../../../src/domain/api-key.js';
import type { Permission } from '../../../src/domain/permissions.js';
import type { User } from '../../../src/domain/user.js';
import { aWorld, errorOf, type World } from '../../support/kit.js';
import { koreaderKey as md5 } from '../../support/koreader.js';

const ADDRESS = '192.0.2.5';
let w: World;
let gina: User;
let ginaKey: string;

async function keyOf(user: User, permissions?: Permission[]): Promise<string> {
  const actor = actorFor(user, { kind: 'token', jti: `session-of-${user.id}`, tokenVersion: user.tokenVersion });
  return (await w.createApiKey.execute(actor, { ownerId: user.id, name: 'kobo', permissions })).secret;
}
const signIn = (username: string, secret: string, address = ADDRESS) => w.authenticateSyncUser.execute({ username, keyMd5: md5(secret) }, address);

beforeEach(async () => {
  w = aWorld();
  gina = (await w.storeUser({ username: 'Gina', email: 'gina@example.test', roles: ['user'] })).user;
  ginaKey = await keyOf(gina);
});

describe('AuthenticateSyncUser', () => {
  it("acts as the key's owner, named in any case, with the key's permissions", async () => {
    for (const name of ['Gina', 'gina', 'GINA', ' gina ']) {
      const actor = await signIn(name, ginaKey);
      expect(actor).toMatchObject({ id: gina.id, username: 'Gina' });
      expect(actsThroughKey(actor)).toBe(true);
    }
  });

  it("refuses another account's working key, an unknown username and a wrong key alike", async () => {
    const { user: hal } = await w.storeUser({ username: 'hal', email: 'hal@example.test', roles: ['user'] });
    const halKey = await keyOf(hal);
    for (const attempt of [signIn('gina', halKey), signIn('nobody', ginaKey), signIn('gina', 'stk_wrong')]) {
      expect(await errorOf(attempt)).toMatchObject({ kind: 'unauthenticated', code: 'invalid_token' });
    }
  });

  it('refuses a username or key that cannot be valid without counting or looking anything up', async () => {
    const bad = [{ username: '', keyMd5: md5(ginaKey) }, { username: 'gina', keyMd5: 'not-an-md5' }, { username: 'a b', keyMd5: md5(ginaKey) }];
    for (const credentials of bad) expect(await errorOf(w.authenticateSyncUser.execute(credentials, ADDRESS))).toMatchObject({ code: 'invalid_token' });
    expect(await w.store.throttle.get(`account:${gina.id}`)).toBeNull();
  });

  it('blocks the account after 3 wrong keys from any addresses, even for the right key, until the block ends', async () => {
    for (let i = 0; i < 3; i++) await errorOf(signIn('gina', `stk_guess-${i}`, `198.51.100.${i}`));
    expect(await errorOf(signIn('gina', ginaKey))).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 300 });
    w.clock.advance(5 * 60_000);
    expect((await signIn('gina', ginaKey)).id).toBe(gina.id);
  });

  it('gives a right key its own attempt back: honest syncing never counts, and syncing between guesses does not hide them', async () => {
    const other = '198.51.100.77';
    for (let i = 0; i < 20; i++) await signIn('gina', ginaKey, other);
    await errorOf(signIn('gina', 'stk_guess-1'));
    await signIn('gina', ginaKey, other);
    await errorOf(signIn('gina', 'stk_guess-2'));
    expect((await w.store.throttle.get(`account:${gina.id}`))?.failures).toBe(2);
    await errorOf(signIn('gina', 'stk_guess-3'));
    expect(await errorOf(signIn('gina', ginaKey))).toMatchObject({ kind: 'rate_limited' });
  });

  it('counts guesses from an address the account synced from within 30 days against that address alone, so others cannot lock it out', async () => {
    const home = '198.51.100.80';
    await signIn('gina', ginaKey, home);
    for (let i = 0; i < 3; i++) await errorOf(signIn('gina', `stk_away-${i}`, `203.0.113.${i}`));
    expect(await errorOf(signIn('gina', ginaKey, '203.0.113.50'))).toMatchObject({ kind: 'rate_limited' });
    expect((await signIn('gina', ginaKey, home)).id).toBe(gina.id);
    for (let i = 0; i < 3; i++) await errorOf(signIn('gina', `stk_home-${i}`, home));
    expect(await errorOf(signIn('gina', ginaKey, home))).toMatchObject({ kind: 'rate_limited' });
    expect(await w.store.throttle.get(`account:${gina.id}@${home}`)).toMatchObject({ blockedUntil: expect.any(Date) });
  });

  it("does not count an attempt the address block stopped against the account", async () => {
    for (let i = 0; i < 10; i++) await errorOf(signIn(`user${i}`, 'stk_guess'));
    expect(await errorOf(signIn('gina', ginaKey))).toMatchObject({ kind: 'rate_limited' });
    expect((await w.store.throttle.get(`account:${gina.id}`))?.failures ?? 0).toBe(0);
  });

  it('refuses a key that may not read books (403 permission_denied)', async () => {
    const shelvesOnly = await keyOf(gina, ['shelves:read']);
    expect(await errorOf(signIn('gina', shelvesOnly))).toMatchObject({ code: 'permission_denied' });
  });
});
