import { describe, expect, it } from 'vitest';
import { aUser, instant } from '../support/builders.js';
import type { StoreFactory } from './stores.js';
import { STORE_FACTORIES, useStore } from './stores.js';

/** UserRepository.findActiveSession: what authentication reads per request, the user and the token's revocation in one read. */
function activeSessionContract(factory: StoreFactory): void {
  const store = useStore(factory);

  it('finds the account a token names while the token id is not revoked', async () => {
    const user = aUser({ roles: ['admin', 'user'], tokenVersion: 3 });
    await store().users.create(user);
    await store().revocations.revoke('other-token', instant(10));
    expect(await store().users.findActiveSession(user.id, 'token-1')).toEqual(user);
  });

  it('finds nothing once the token id is revoked, and still finds the account for its other tokens', async () => {
    const user = aUser();
    await store().users.create(user);
    await store().revocations.revoke('token-1', instant(10));
    expect(await store().users.findActiveSession(user.id, 'token-1')).toBeNull();
    expect(await store().users.findActiveSession(user.id, 'token-2')).toEqual(user);
  });

  it('finds nothing for an account that is gone, whatever the token', async () => {
    const user = aUser();
    await store().users.create(user);
    await store().users.delete(user.id);
    expect(await store().users.findActiveSession(user.id, 'token-1')).toBeNull();
    expect(await store().users.findActiveSession('nobody', 'token-1')).toBeNull();
  });

  it('returns the account as stored now: a later password change shows its new token version', async () => {
    const user = aUser({ tokenVersion: 0 });
    await store().users.create(user);
    await store().users.setPassword(user.id, '$2b$04$another-hash', instant(50));
    expect((await store().users.findActiveSession(user.id, 'token-1'))?.tokenVersion).toBe(1);
  });
}

describe.each(STORE_FACTORIES)('UserRepository.findActiveSession contract ($name)', (factory) => activeSessionContract(factory));
