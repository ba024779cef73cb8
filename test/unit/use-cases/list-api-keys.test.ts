import { beforeEach, describe, expect, it } from 'vitest';
import { aWorld, errorOf, type World } from '../../support/kit.js';

let w: World;
beforeEach(() => {
  w = aWorld();
});

describe('ListApiKeys', () => {
  it("pages the owner's keys, newest first, and only theirs", async () => {
    const { user, actor } = await w.storeUser();
    const { user: bob, actor: bobActor } = await w.storeUser();
    await w.createApiKey.execute(actor, { ownerId: user.id, name: 'old' });
    w.clock.advance(1000);
    await w.createApiKey.execute(actor, { ownerId: user.id, name: 'new' });
    await w.createApiKey.execute(bobActor, { ownerId: bob.id, name: 'bob' });
    const page = await w.listApiKeys.execute(actor, { ownerId: user.id, page: { page: 1, pageSize: 1 } });
    expect(page).toMatchObject({ total: 2, totalPages: 2, page: 1, pageSize: 1 });
    expect(page.items.map((k) => k.name)).toEqual(['new']);
  });

  it("shows someone else's keys to an admin only; an unknown user is user_not_found", async () => {
    const { user } = await w.storeUser();
    const { actor: other } = await w.storeUser();
    const { actor: admin } = await w.storeUser({ roles: ['admin'] });
    expect(await errorOf(w.listApiKeys.execute(other, { ownerId: user.id, page: { page: 1, pageSize: 10 } }))).toMatchObject({ code: 'permission_denied' });
    expect((await w.listApiKeys.execute(admin, { ownerId: user.id, page: { page: 1, pageSize: 10 } })).total).toBe(0);
    expect(await errorOf(w.listApiKeys.execute(admin, { ownerId: 'ghost', page: { page: 1, pageSize: 10 } }))).toMatchObject({ code: 'user_not_found' });
  });
});
