import { describe, expect, it } from 'vitest';
import { aUser, instant } from '../support/builders.js';
import type { StoreFactory } from './stores.js';
import { STORE_FACTORIES, useStore } from './stores.js';

const DAY = 86_400_000;

function knownAddressRepositoryContract(factory: StoreFactory): void {
  const store = useStore(factory);
  const known = () => store().knownAddresses;

  async function seedUsers(...ids: string[]): Promise<void> {
    for (const id of ids) await store().users.create(aUser({ id, username: id, email: `${id}@example.test` }));
  }

  it('remembers the last sign-in per (account, address), null for one never seen', async () => {
    await seedUsers('u1', 'u2');
    await known().remember('u1', '192.0.2.1', instant(10));
    expect(await known().lastSignIn('u1', '192.0.2.1')).toEqual(instant(10));
    expect(await known().lastSignIn('u1', '192.0.2.2')).toBeNull();
    expect(await known().lastSignIn('u2', '192.0.2.1')).toBeNull();
  });

  it('only moves the time forward: an earlier sign-in written late never hides a later one', async () => {
    await seedUsers('u1');
    await known().remember('u1', '2001:0db8:0000:00::/56', instant(20));
    await known().remember('u1', '2001:0db8:0000:00::/56', instant(5));
    expect(await known().lastSignIn('u1', '2001:0db8:0000:00::/56')).toEqual(instant(20));
    await known().remember('u1', '2001:0db8:0000:00::/56', instant(30));
    expect(await known().lastSignIn('u1', '2001:0db8:0000:00::/56')).toEqual(instant(30));
  });

  it('lists an account\'s addresses since a time, most recent first, up to a limit', async () => {
    await seedUsers('u1', 'u2');
    for (const [address, at] of [['a', 1], ['b', 3], ['c', 2], ['d', 5]] as const) await known().remember('u1', address, instant(at));
    await known().remember('u2', 'e', instant(4));
    expect(await known().recent('u1', instant(2), 10)).toEqual(['d', 'b', 'c']);
    expect(await known().recent('u1', instant(0), 2)).toEqual(['d', 'b']);
  });

  it('keeps nothing for an account that does not exist, and forgets a deleted account\'s addresses', async () => {
    await seedUsers('u1', 'u2');
    await known().remember('ghost', 'a', instant(1));
    expect(await known().lastSignIn('ghost', 'a')).toBeNull();
    await known().remember('u1', 'a', instant(1));
    await known().remember('u2', 'a', instant(1));
    await known().deleteForUser('u1');
    expect(await known().lastSignIn('u1', 'a')).toBeNull();
    expect(await known().lastSignIn('u2', 'a')).toEqual(instant(1));
  });

  it('purges sign-ins before a time, and says how many', async () => {
    await seedUsers('u1');
    const now = new Date(Date.UTC(2026, 10, 22));
    await known().remember('u1', 'old', new Date(now.getTime() - 31 * DAY));
    await known().remember('u1', 'fresh', new Date(now.getTime() - 29 * DAY));
    expect(await known().purgeBefore(new Date(now.getTime() - 30 * DAY))).toBe(1);
    expect(await known().recent('u1', new Date(0), 10)).toEqual(['fresh']);
  });

  it('keeps the latest of 100 sign-ins of one (account, address) written at once, two writers interleaved', async () => {
    await seedUsers('u1');
    const times = Array.from({ length: 100 }, (_, i) => instant((i * 37) % 100));
    await Promise.all(times.map((at) => known().remember('u1', 'busy', at)));
    expect(await known().lastSignIn('u1', 'busy')).toEqual(instant(99));
    await Promise.all([known().remember('u1', 'pair', instant(2)), known().remember('u1', 'pair', instant(1))]);
    expect(await known().lastSignIn('u1', 'pair')).toEqual(instant(2));
  });
}

describe.each(STORE_FACTORIES)('KnownAddressRepository contract: $name', (factory) => knownAddressRepositoryContract(factory));
