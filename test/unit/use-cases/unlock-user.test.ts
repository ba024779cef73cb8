import { beforeEach, describe, expect, it } from 'vitest';
import { accountCounter, passwordCounter } from '../../../src/application/use-cases/account-lockout.js';
import type { Actor } from '../../../src/domain/actor.js';
import type { User } from '../../../src/domain/user.js';
import { aWorld, errorOf, type World } from '../../support/kit.js';

const PASSWORD = 'correct horse battery';
const HOME = '198.51.100.10';
let w: World;
let gina: { user: User; actor: Actor };
let root: { user: User; actor: Actor };
beforeEach(async () => {
  w = aWorld();
  gina = await w.storeUser({ username: 'gina', passwordHash: await w.hasher.hash(PASSWORD) });
  root = await w.storeUser({ username: 'root', roles: ['admin'] });
});

const login = (password: string, clientAddress: string) => w.loginUser.execute({ login: 'gina', password, clientAddress });
const codeOf = async (promise: Promise<unknown>) => (await errorOf(promise)).code;

/** Blocks Gina's account (from unknown addresses), her home address's own counter, and her current-password guesses. */
async function lockEverything(): Promise<void> {
  await login(PASSWORD, HOME); // HOME becomes a known address, with its own counter
  for (let i = 0; i < 3; i++) await errorOf(login(`wrong ${i}`, `203.0.113.${i}`));
  for (let i = 0; i < 3; i++) await errorOf(login(`wrong ${i}`, HOME));
  for (let i = 0; i < 3; i++) await errorOf(w.changePassword.execute(gina.actor, { currentPassword: `wrong ${i}`, newPassword: 'another password' }));
  expect(await codeOf(login(PASSWORD, '203.0.113.99'))).toBe('rate_limited');
  expect(await codeOf(login(PASSWORD, HOME))).toBe('rate_limited');
  expect(await codeOf(w.changePassword.execute(gina.actor, { currentPassword: PASSWORD, newPassword: 'another password' }))).toBe('rate_limited');
}

describe('UnlockUser', () => {
  it('lifts every block of the account at once: its own, its known addresses\' and its current-password guesses', async () => {
    await lockEverything();
    await w.unlockUser.execute(root.actor, gina.user.id);
    expect(await w.lockout.lockedUntil(gina.user.id)).toBeNull();
    for (const key of [accountCounter(gina.user.id), passwordCounter(gina.user.id), `${accountCounter(gina.user.id)}@${HOME}`]) {
      expect(await w.store.throttle.get(key)).toBeNull();
    }
    expect((await login(PASSWORD, '203.0.113.99')).user.id).toBe(gina.user.id);
    expect((await login(PASSWORD, HOME)).user.id).toBe(gina.user.id);
  });

  it('is for admins only: anyone else gets permission_denied and the blocks stay', async () => {
    await lockEverything();
    expect(await codeOf(w.unlockUser.execute(gina.actor, gina.user.id))).toBe('permission_denied');
    expect(await w.lockout.lockedUntil(gina.user.id)).not.toBeNull();
  });

  it('refuses an admin demoted since signing in (authority confirmed before the write), and the blocks stay', async () => {
    await lockEverything();
    await w.storeUser({ roles: ['admin'] }); // so that root is not the last admin
    await w.store.users.updateAccess(root.user.id, { roles: ['user'] }, w.clock.now());
    expect(await codeOf(w.unlockUser.execute(root.actor, gina.user.id))).toBe('permission_denied');
    expect(await w.lockout.lockedUntil(gina.user.id)).not.toBeNull();
  });

  it('answers user_not_found for an unknown account', async () => {
    expect(await errorOf(w.unlockUser.execute(root.actor, 'no-such-user'))).toMatchObject({ kind: 'not_found', code: 'user_not_found' });
  });
});
