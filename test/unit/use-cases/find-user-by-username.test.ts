import { beforeEach, describe, expect, it } from 'vitest';
import { admin, alice, aWorld, errorOf, type World } from '../../support/kit.js';

let w: World;
beforeEach(() => {
  w = aWorld();
});

describe('FindUserByUsername', () => {
  it('finds an account by its username in any case', async () => {
    const { user } = await w.storeUser({ username: 'Eve.Smith' });
    expect(await w.findUserByUsername.execute(admin, 'eve.SMITH')).toEqual(user);
  });

  it('answers user_not_found for an unknown name', async () => {
    await w.storeUser({ username: 'eve' });
    expect(await errorOf(w.findUserByUsername.execute(admin, 'eva'))).toMatchObject({ kind: 'not_found', code: 'user_not_found' });
  });

  it('is permission_denied for anyone but an admin, even for an existing name', async () => {
    await w.storeUser({ username: 'eve' });
    expect(await errorOf(w.findUserByUsername.execute(alice, 'eve'))).toMatchObject({ kind: 'forbidden', code: 'permission_denied' });
  });
});
