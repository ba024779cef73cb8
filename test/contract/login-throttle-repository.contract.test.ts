import { describe, expect, it } from 'vitest';
import type { ThrottlePolicy } from '../../src/domain/login-throttle.js';
import { instant } from '../support/builders.js';
import type { StoreFactory } from './stores.js';
import { STORE_FACTORIES, useStore } from './stores.js';

const policy: ThrottlePolicy = { maxFailures: 3, windowMs: 60_000, blockMs: 10_000, maxBlockMs: 40_000 };
const wide: ThrottlePolicy = { ...policy, maxFailures: 1000 };

function loginThrottleRepositoryContract(factory: StoreFactory): void {
  const store = useStore(factory);
  const throttle = () => store().throttle;
  /** Reserves one attempt at each of the given seconds, one after the other; the answers in order. */
  const reserveAt = async (key: string, ...seconds: number[]) => {
    const waits: number[] = [];
    for (const s of seconds) waits.push(await throttle().reserve(key, instant(s), policy));
    return waits;
  };

  it('has no counter for a key that was never reserved', async () => {
    expect(await throttle().get('account:ada')).toBeNull();
  });

  it('counts reserved attempts within the window and stores the counter', async () => {
    expect(await reserveAt('account:ada', 0, 1)).toEqual([0, 0]);
    expect(await throttle().get('account:ada')).toEqual({ key: 'account:ada', failures: 2, windowStartedAt: instant(0), blockedUntil: null, blocks: 0 });
  });

  it('keeps keys apart', async () => {
    await reserveAt('account:ada', 0, 1);
    await reserveAt('ip:10.0.0.1', 2);
    expect((await throttle().get('account:ada'))?.failures).toBe(2);
    expect((await throttle().get('ip:10.0.0.1'))?.failures).toBe(1);
  });

  it('starts a new window once the old one has passed', async () => {
    await reserveAt('k', 0, 1, 62);
    expect(await throttle().get('k')).toMatchObject({ failures: 1, windowStartedAt: instant(62) });
  });

  it('admits the attempt that reaches the limit and blocks from it; a blocked key answers the ms left and counts nothing', async () => {
    expect(await reserveAt('k', 0, 1, 2)).toEqual([0, 0, 0]);
    const blocked = { key: 'k', failures: 0, windowStartedAt: instant(2), blockedUntil: instant(12), blocks: 1 };
    expect(await throttle().get('k')).toEqual(blocked);
    expect(await reserveAt('k', 4, 11)).toEqual([8000, 1000]);
    expect(await throttle().get('k')).toEqual(blocked);
    expect(await reserveAt('k', 12)).toEqual([0]);
  });

  it('makes each block in a row longer, up to the maximum', async () => {
    await reserveAt('k', 0, 1, 2);
    await reserveAt('k', 13, 14, 15);
    expect(await throttle().get('k')).toMatchObject({ blockedUntil: instant(35), blocks: 2 });
    await reserveAt('k', 36, 37, 38);
    expect(await throttle().get('k')).toMatchObject({ blockedUntil: instant(78), blocks: 3 });
    await reserveAt('k', 79, 80, 81);
    expect(await throttle().get('k')).toMatchObject({ blockedUntil: instant(121), blocks: 4 });
  });

  it('forgets earlier blocks after a quiet cool-down', async () => {
    await reserveAt('k', 0, 1, 2);
    await reserveAt('k', 200, 201, 202);
    expect(await throttle().get('k')).toMatchObject({ blockedUntil: instant(212), blocks: 1 });
  });

  it('release gives one attempt back, never below zero', async () => {
    await reserveAt('k', 0, 1);
    await throttle().release('k', instant(3), policy);
    expect(await throttle().get('k')).toMatchObject({ failures: 1, windowStartedAt: instant(0) });
    await throttle().release('k', instant(3), policy);
    await throttle().release('k', instant(3), policy);
    expect(await throttle().get('k')).toMatchObject({ failures: 0 });
    await throttle().release('never', instant(3), policy);
    expect(await throttle().get('never')).toBeNull();
  });

  it('release never lifts a block, nor touches a window that has passed', async () => {
    await reserveAt('k', 0, 1, 2);
    await throttle().release('k', instant(5), policy);
    expect(await throttle().get('k')).toMatchObject({ blockedUntil: instant(12), blocks: 1 });
    expect(await reserveAt('k', 6)).toEqual([6000]);
    await reserveAt('old', 0, 1);
    await throttle().release('old', instant(61), policy);
    expect(await throttle().get('old')).toMatchObject({ failures: 2 });
  });

  it('reset removes the counter, block included', async () => {
    await reserveAt('k', 0, 1, 2);
    await throttle().reset('k');
    expect(await throttle().get('k')).toBeNull();
    expect(await reserveAt('k', 3)).toEqual([0]);
    expect(await throttle().get('k')).toMatchObject({ failures: 1, blockedUntil: null, blocks: 0 });
  });

  it('admits exactly maxFailures of 150 parallel reservations on one key, and blocks the rest', async () => {
    const ten = { ...policy, maxFailures: 10 };
    const waits = await Promise.all(Array.from({ length: 150 }, () => throttle().reserve('burst', instant(0), ten)));
    expect(waits.filter((w) => w === 0)).toHaveLength(10);
    expect(new Set(waits.filter((w) => w > 0))).toEqual(new Set([10_000]));
    expect(await throttle().get('burst')).toMatchObject({ failures: 0, blockedUntil: instant(10), blocks: 1 });
  });

  it('loses no change when two writers interleave, one reserving and one releasing', async () => {
    for (let i = 0; i < 30; i++) await throttle().reserve('k', instant(0), wide);
    const reserving = Array.from({ length: 50 }, () => () => throttle().reserve('k', instant(1), wide));
    const releasing = Array.from({ length: 20 }, () => () => throttle().release('k', instant(1), wide));
    const interleaved = reserving.flatMap((reserve, i) => (i < releasing.length ? [reserve, releasing[i]!] : [reserve]));
    await Promise.all(interleaved.map((write) => write()));
    expect(await throttle().get('k')).toMatchObject({ failures: 30 + 50 - 20, windowStartedAt: instant(0) });
  });

  it('hands out copies', async () => {
    await reserveAt('k', 0);
    (await throttle().get('k'))?.windowStartedAt.setTime(0);
    expect((await throttle().get('k'))?.windowStartedAt).toEqual(instant(0));
  });
}

describe.each(STORE_FACTORIES)('LoginThrottleRepository contract ($name)', (factory) =>
  loginThrottleRepositoryContract(factory),
);
