import { describe, expect, it } from 'vitest';
import type { ApiKey } from '../../src/domain/api-key.js';
import { errorOf, instant } from '../support/kit.js';
import type { StoreFactory } from './stores.js';
import { STORE_FACTORIES, itWhere, useStore } from './stores.js';

const MINUTE = 60_000;
let n = 0;

function aKey(overrides: Partial<ApiKey> = {}): ApiKey {
  n += 1;
  return {
    id: `key-${n}`, ownerId: 'owner-1', name: `key ${n}`, lookup: `lookup-${n}`, prefix: `pfx${n}`.padEnd(8, 'x'),
    permissions: ['books:read', 'shelves:read'], ownerTokenVersion: 0, expiresAt: null, lastUsedAt: null, createdAt: instant(n),
    ...overrides,
  };
}

function apiKeyRepositoryContract(factory: StoreFactory): void {
  const store = useStore(factory);
  const keys = () => store().apiKeys;

  it('finds a key by its lookup digest, every field as stored', async () => {
    const key = aKey({ expiresAt: instant(500), lastUsedAt: instant(400), permissions: ['admin:*'], ownerTokenVersion: 3 });
    await keys().create(key);
    expect(await keys().findByLookup(key.lookup)).toEqual(key);
    expect(await keys().findByLookup('no-such-lookup')).toBeNull();
  });

  itWhere(factory, 'uniqueIndexes')('refuses a second key with the same lookup digest (409 api_key_exists)', async () => {
    const key = aKey();
    await keys().create(key);
    expect(await errorOf(keys().create(aKey({ lookup: key.lookup })))).toMatchObject({ kind: 'conflict', code: 'api_key_exists' });
  });

  it("lists only the owner's keys, newest first, one page at a time with the total", async () => {
    const [a, b, c] = [aKey({ createdAt: instant(1) }), aKey({ createdAt: instant(3) }), aKey({ createdAt: instant(2) })];
    for (const key of [a, b, c, aKey({ ownerId: 'owner-2' })]) await keys().create(key);
    const first = await keys().listByOwner('owner-1', { page: 1, pageSize: 2 });
    expect(first.total).toBe(3);
    expect(first.items.map((k) => k.id)).toEqual([b.id, c.id]);
    expect((await keys().listByOwner('owner-1', { page: 2, pageSize: 2 })).items.map((k) => k.id)).toEqual([a.id]);
    expect(await keys().listByOwner('nobody', { page: 1, pageSize: 2 })).toEqual({ items: [], total: 0 });
  });

  it('revokes only through its owner, once', async () => {
    const key = aKey();
    await keys().create(key);
    expect(await keys().revoke('owner-2', key.id)).toBe(false);
    expect(await keys().findByLookup(key.lookup)).not.toBeNull();
    expect(await keys().revoke('owner-1', key.id)).toBe(true);
    expect(await keys().revoke('owner-1', key.id)).toBe(false);
    expect(await keys().findByLookup(key.lookup)).toBeNull();
  });

  it('records a use only when the last one is unset or at least the interval old', async () => {
    const key = aKey();
    await keys().create(key);
    expect(await keys().touchLastUsed(key.id, instant(100), MINUTE)).toBe(true);
    expect(await keys().touchLastUsed(key.id, instant(159), MINUTE)).toBe(false);
    expect((await keys().findByLookup(key.lookup))?.lastUsedAt).toEqual(instant(100));
    expect(await keys().touchLastUsed(key.id, instant(160), MINUTE)).toBe(true);
    expect((await keys().findByLookup(key.lookup))?.lastUsedAt).toEqual(instant(160));
  });

  it('lets exactly one of many concurrent touches write', async () => {
    const key = aKey();
    await keys().create(key);
    const written = await Promise.all(Array.from({ length: 20 }, () => keys().touchLastUsed(key.id, instant(100), MINUTE)));
    expect(written.filter(Boolean)).toHaveLength(1);
  });

  it('never brings a revoked key back, even when a touch races the revocation', async () => {
    const key = aKey();
    await keys().create(key);
    const [, revoked] = await Promise.all([keys().touchLastUsed(key.id, instant(100), MINUTE), keys().revoke('owner-1', key.id)]);
    expect(revoked).toBe(true);
    expect(await keys().touchLastUsed(key.id, instant(200), MINUTE)).toBe(false);
    expect(await keys().findByLookup(key.lookup)).toBeNull();
    expect((await keys().listByOwner('owner-1', { page: 1, pageSize: 10 })).total).toBe(0);
  });

  it("deletes every key of one user and says how many, leaving the others' alone", async () => {
    const other = aKey({ ownerId: 'owner-2' });
    for (const key of [aKey(), aKey(), other]) await keys().create(key);
    expect(await keys().deleteForUser('owner-1')).toBe(2);
    expect((await keys().listByOwner('owner-1', { page: 1, pageSize: 10 })).total).toBe(0);
    expect(await keys().findByLookup(other.lookup)).not.toBeNull();
  });

  it('is not affected by later changes to the objects it was given or returned', async () => {
    const permissions: ApiKey['permissions'][number][] = ['books:read'];
    const key = aKey({ permissions });
    await keys().create(key);
    permissions.push('admin:*');
    const found = await keys().findByLookup(key.lookup);
    (found?.permissions as string[]).push('books:write');
    expect((await keys().findByLookup(key.lookup))?.permissions).toEqual(['books:read']);
  });
}

describe.each(STORE_FACTORIES)('ApiKeyRepository contract ($name)', (factory) => apiKeyRepositoryContract(factory));
