import { beforeEach, describe, expect, it } from 'vitest';
import { TOKEN_CLOCK_TOLERANCE_SECONDS } from '../../../src/domain/token-revocation.js';
import { aWorld, errorOf, type World } from '../../support/kit.js';

let w: World;
beforeEach(() => {
  w = aWorld();
});

/** The claims of a session token (a personal API key has none). */
async function claimsOf(token: string) {
  const { claims } = await w.authenticate.execute(token);
  if (!claims) throw new Error('not a session token');
  return claims;
}

describe('Logout', () => {
  it('revokes the token it was called with, and only that one', async () => {
    const { user } = await w.storeUser();
    const [used, other] = [w.tokens.issue(user), w.tokens.issue(user)];
    const claims = await claimsOf(used.token);
    await w.logout.execute(claims);
    expect(await w.store.revocations.isRevoked(used.jti)).toBe(true);
    expect(await errorOf(w.authenticate.execute(used.token))).toMatchObject({ kind: 'unauthenticated', code: 'invalid_token' });
    expect((await w.authenticate.execute(other.token)).user.id).toBe(user.id);
  });

  it('is idempotent', async () => {
    const { user } = await w.storeUser();
    const claims = await claimsOf(w.tokens.issue(user).token);
    await w.logout.execute(claims);
    await w.logout.execute(claims);
    expect(await w.store.revocations.isRevoked(claims.jti)).toBe(true);
  });

  it('keeps the revocation past the token expiry, until the verifier clock tolerance has run out too', async () => {
    const { user } = await w.storeUser();
    const claims = await claimsOf(w.tokens.issue(user).token);
    await w.logout.execute(claims);
    const tolerance = TOKEN_CLOCK_TOLERANCE_SECONDS * 1000;
    expect(await w.store.revocations.purgeExpired(new Date(claims.expiresAt.getTime() + 1000))).toBe(0);
    expect(await w.store.revocations.purgeExpired(new Date(claims.expiresAt.getTime() + tolerance - 1000))).toBe(0);
    expect(await w.store.revocations.isRevoked(claims.jti)).toBe(true);
    expect(await w.store.revocations.purgeExpired(new Date(claims.expiresAt.getTime() + tolerance))).toBe(1);
  });
});
