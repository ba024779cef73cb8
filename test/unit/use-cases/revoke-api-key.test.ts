import { beforeEach, describe, expect, it } from 'vitest';
import { aWorld, errorOf, type World } from '../../support/kit.js';

let w: World;
beforeEach(() => {
  w = aWorld();
});

describe('RevokeApiKey', () => {
  it('deletes the key, which stops working on the next request', async () => {
    const { user, actor } = await w.storeUser();
    const { key, secret } = await w.createApiKey.execute(actor, { ownerId: user.id, name: 'k' });
    await w.revokeApiKey.execute(actor, { ownerId: user.id, keyId: key.id });
    expect(await errorOf(w.authenticate.execute(secret, '10.0.0.1'))).toMatchObject({ code: 'invalid_token' });
    expect(await errorOf(w.revokeApiKey.execute(actor, { ownerId: user.id, keyId: key.id }))).toMatchObject({ kind: 'not_found', code: 'api_key_not_found' });
  });

  it("cannot reach another user's key through one's own id (404), nor through theirs without admin (403)", async () => {
    const { user: owner, actor: ownerActor } = await w.storeUser();
    const { user: thief, actor: thiefActor } = await w.storeUser();
    const { actor: admin } = await w.storeUser({ roles: ['admin'] });
    const { key, secret } = await w.createApiKey.execute(ownerActor, { ownerId: owner.id, name: 'k' });
    expect(await errorOf(w.revokeApiKey.execute(thiefActor, { ownerId: thief.id, keyId: key.id }))).toMatchObject({ code: 'api_key_not_found' });
    expect(await errorOf(w.revokeApiKey.execute(thiefActor, { ownerId: owner.id, keyId: key.id }))).toMatchObject({ code: 'permission_denied' });
    expect((await w.authenticate.execute(secret, '10.0.0.1')).user.id).toBe(owner.id);
    await w.revokeApiKey.execute(admin, { ownerId: owner.id, keyId: key.id });
    expect(await errorOf(w.authenticate.execute(secret, '10.0.0.1'))).toMatchObject({ code: 'invalid_token' });
  });
});
