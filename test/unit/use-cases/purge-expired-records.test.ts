import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../../src/adapters/memory/memory-store.js';
import { PurgeExpiredRecords } from '../../../src/application/use-cases/purge-expired-records.js';
import { aUser } from '../../support/builders.js';
import { FakeClock } from '../../support/clock.js';

describe('PurgeExpiredRecords', () => {
  it('forgets revocations and one-time codes whose expiry has passed, and sign-in addresses unused for 30 days, keeps the rest, and says how many went', async () => {
    const store = createMemoryStore();
    const clock = new FakeClock();
    const at = (ms: number) => new Date(clock.now().getTime() + ms);
    await store.revocations.revoke('old-jti', at(-1));
    await store.revocations.revoke('live-jti', at(60_000));
    await store.oneTimeCodes.put('old-code', 'v', at(-1));
    await store.oneTimeCodes.put('other-old-code', 'v', at(-5));
    await store.oneTimeCodes.put('live-code', 'v', at(60_000));

    await store.users.create(aUser({ id: 'u1' }));
    await store.knownAddresses.remember('u1', '192.0.2.1', at(-31 * 86_400_000));
    await store.knownAddresses.remember('u1', '192.0.2.2', at(-29 * 86_400_000));

    const purge = new PurgeExpiredRecords(store.revocations, store.oneTimeCodes, clock, store.knownAddresses);
    expect(await purge.execute()).toEqual({ revocationsPurged: 1, oneTimeCodesPurged: 2, knownAddressesPurged: 1 });
    expect(await store.knownAddresses.recent('u1', at(-365 * 86_400_000), 10)).toEqual(['192.0.2.2']);
    expect(await store.revocations.isRevoked('live-jti')).toBe(true);
    expect(await store.oneTimeCodes.take('live-code', clock.now())).toBe('v');
    expect(await purge.execute()).toEqual({ revocationsPurged: 0, oneTimeCodesPurged: 0, knownAddressesPurged: 0 });
  });
});
