import { beforeEach, describe, expect, it } from 'vitest';
import { admin, alice, aWorld, errorOf, type World } from '../../support/kit.js';

let w: World;
beforeEach(() => {
  w = aWorld();
});

describe('GetUser', () => {
  it('reads one account for an admin', async () => {
    const { user } = await w.storeUser({ username: 'fay' });
    expect(await w.getUser.execute(admin, user.id)).toEqual({ user, lockedUntil: null });
  });

  it('answers user_not_found for an unknown id', async () => {
    expect(await errorOf(w.getUser.execute(admin, 'nobody-here'))).toMatchObject({ kind: 'not_found', code: 'user_not_found' });
  });

  it('is permission_denied for anyone but an admin, even for their own account', async () => {
    const { user, actor } = await w.storeUser();
    expect(await errorOf(w.getUser.execute(actor, user.id))).toMatchObject({ kind: 'forbidden', code: 'permission_denied' });
    expect(await errorOf(w.getUser.execute(alice, 'nobody-here'))).toMatchObject({ kind: 'forbidden', code: 'permission_denied' });
  });
});
