import { beforeEach, describe, expect, it } from 'vitest';
import { aWorld, errorOf, type World } from '../../support/kit.js';

let w: World;
beforeEach(() => {
  w = aWorld();
});

describe('Authenticate', () => {
  it('turns a token into the caller, with permissions from the stored roles', async () => {
    const { user } = await w.storeUser({ roles: ['reader'] });
    const issued = w.tokens.issue(user);
    const got = await w.authenticate.execute(issued.token);
    expect(got.actor).toEqual({
      id: user.id, username: user.username, roles: ['reader'], permissions: ['books:read', 'shelves:read'],
      credential: { kind: 'token', jti: issued.jti, tokenVersion: 0, expiresAt: got.claims?.expiresAt },
    });
    expect(got.user).toEqual(user);
    expect(got.claims).toMatchObject({ userId: user.id, jti: issued.jti, tokenVersion: 0 });
  });

  it('reads roles from the store on every call, not from the token', async () => {
    const { user } = await w.storeUser({ roles: ['user'] });
    const issued = w.tokens.issue(user);
    await w.store.users.updateAccess(user.id, { roles: ['admin'] }, w.clock.now());
    expect((await w.authenticate.execute(issued.token)).actor.permissions).toEqual(['admin:*']);
  });

  it('answers missing_token without a token and invalid_token for one that is not ours', async () => {
    expect(await errorOf(w.authenticate.execute(undefined))).toMatchObject({ kind: 'unauthenticated', code: 'missing_token' });
    expect(await errorOf(w.authenticate.execute(''))).toMatchObject({ kind: 'unauthenticated', code: 'missing_token' });
    expect(await errorOf(w.authenticate.execute('not.a.token'))).toMatchObject({ kind: 'unauthenticated', code: 'invalid_token' });
  });

  it('answers invalid_token for a revoked token, an expired one, and a disabled, deleted or re-versioned account', async () => {
    const revoked = await w.storeUser();
    const revokedToken = w.tokens.issue(revoked.user);
    await w.store.revocations.revoke(revokedToken.jti, new Date(w.clock.now().getTime() + 3_600_000));
    const disabled = await w.storeUser();
    const disabledToken = w.tokens.issue(disabled.user);
    await w.store.users.updateAccess(disabled.user.id, { disabled: true }, w.clock.now());
    const deleted = await w.storeUser();
    const deletedToken = w.tokens.issue(deleted.user);
    await w.store.users.delete(deleted.user.id);
    const bumped = await w.storeUser();
    const bumpedToken = w.tokens.issue(bumped.user);
    await w.store.users.setPassword(bumped.user.id, 'another hash', w.clock.now());
    for (const token of [revokedToken, disabledToken, deletedToken, bumpedToken]) {
      expect(await errorOf(w.authenticate.execute(token.token))).toMatchObject({ kind: 'unauthenticated', code: 'invalid_token' });
    }
    const { user } = await w.storeUser();
    const later = w.tokens.issue(user);
    w.clock.advance(2 * 3_600_000);
    expect(await errorOf(w.authenticate.execute(later.token))).toMatchObject({ kind: 'unauthenticated', code: 'invalid_token' });
  });
});
