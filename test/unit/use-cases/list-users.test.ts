import { beforeEach, describe, expect, it } from 'vitest';
import { admin, alice, aWorld, errorOf, instant, type World } from '../../support/kit.js';

let w: World;
beforeEach(() => {
  w = aWorld();
});

describe('ListUsers', () => {
  it('pages every account in creation order', async () => {
    const newest = await w.storeUser({ username: 'newest', createdAt: instant(3) });
    const oldest = await w.storeUser({ username: 'oldest', createdAt: instant(1) });
    const middle = await w.storeUser({ username: 'middle', createdAt: instant(2) });
    const first = await w.listUsers.execute(admin, { page: 1, pageSize: 2 });
    expect(first).toMatchObject({ total: 3, page: 1, pageSize: 2, totalPages: 2 });
    expect(first.items.map((m) => m.user.id)).toEqual([oldest.user.id, middle.user.id]);
    expect((await w.listUsers.execute(admin, { page: 2, pageSize: 2 })).items).toEqual([{ user: newest.user, lockedUntil: null }]);
  });

  it('is permission_denied for anyone but an admin', async () => {
    await w.storeUser();
    expect(await errorOf(w.listUsers.execute(alice, { page: 1, pageSize: 20 }))).toMatchObject({ kind: 'forbidden', code: 'permission_denied' });
  });
});
