import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../../src/adapters/memory/memory-store.js';
import { PurgeExpiredRecords } from '../../../src/application/use-cases/purge-expired-records.js';
import { FakeClock } from '../../support/clock.js';

describe('PurgeExpiredRecords', () => {
  it('forgets revocations and one-time codes whose expiry has passed, keeps the rest, and says how many went', async () => {
    const store = createMemoryStore();
    const clock = new FakeClock();
    const at = (ms: number) => new Date(clock.now().getTime() + ms);
    await store.revocations.revoke('old-jti', at(-1));
    await store.revocations.revoke('live-jti', at(60_000));
    await store.oneTimeCodes.put('old-code', 'v', at(-1));
    await store.oneTimeCodes.put('other-old-code', 'v', at(-5));
    await store.oneTimeCodes.put('live-code', 'v', at(60_000));

    const purge = new PurgeExpiredRecords(store.revocations, store.oneTimeCodes, clock);
    expect(await purge.execute()).toEqual({ revocationsPurged: 1, oneTimeCodesPurged: 2 });
    expect(await store.revocations.isRevoked('live-jti')).toBe(true);
    expect(await store.oneTimeCodes.take('live-code', clock.now())).toBe('v');
    expect(await purge.execute()).toEqual({ revocationsPurged: 0, oneTimeCodesPurged: 0 });
  });
});
