import { describe, expect, it } from 'vitest';
import { instant } from '../support/builders.js';
import type { StoreFactory } from './stores.js';
import { STORE_FACTORIES, useStore } from './stores.js';

function tokenRevocationRepositoryContract(factory: StoreFactory): void {
  const store = useStore(factory);
  const revocations = () => store().revocations;

  it('knows nothing of a token id it was never told about', async () => {
    await revocations().revoke('other', instant(10));
    expect(await revocations().isRevoked('jti-1')).toBe(false);
  });

  it('denies a revoked token id, and revoking twice is harmless', async () => {
    await revocations().revoke('jti-1', instant(10));
    await revocations().revoke('jti-1', instant(10));
    expect(await revocations().isRevoked('jti-1')).toBe(true);
  });

  it('purges only revocations whose tokens have expired, and says how many', async () => {
    await revocations().revoke('old-1', instant(5));
    await revocations().revoke('old-2', instant(10));
    await revocations().revoke('live', instant(11));
    expect(await revocations().purgeExpired(instant(10))).toBe(2);
    expect(await revocations().isRevoked('old-1')).toBe(false);
    expect(await revocations().isRevoked('old-2')).toBe(false);
    expect(await revocations().isRevoked('live')).toBe(true);
    expect(await revocations().purgeExpired(instant(10))).toBe(0);
  });

  it('keeps the later expiry when the same token id is revoked again', async () => {
    await revocations().revoke('jti', instant(20));
    await revocations().revoke('jti', instant(5));
    expect(await revocations().purgeExpired(instant(10))).toBe(0);
    expect(await revocations().isRevoked('jti')).toBe(true);
  });

  it('is not affected by later changes to the Date it was given', async () => {
    const expiresAt = instant(20);
    await revocations().revoke('jti', expiresAt);
    expiresAt.setTime(instant(1).getTime());
    expect(await revocations().purgeExpired(instant(10))).toBe(0);
  });
}

describe.each(STORE_FACTORIES)('TokenRevocationRepository contract ($name)', (factory) =>
  tokenRevocationRepositoryContract(factory),
);
