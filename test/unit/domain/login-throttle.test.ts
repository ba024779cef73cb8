import { describe, expect, it } from 'vitest';
import { afterAttempt, afterRelease, blockedFor, reserveAttempt, type ThrottleCounter, type ThrottlePolicy } from '../../../src/domain/login-throttle.js';

const policy: ThrottlePolicy = { maxFailures: 3, windowMs: 60_000, blockMs: 10_000, maxBlockMs: 35_000 };
const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);

function fail(times: number, start: ThrottleCounter | null, now: number): ThrottleCounter | null {
  let c = start;
  for (let i = 0; i < times; i++) c = afterAttempt(c, 'k', at(now), policy);
  return c;
}

describe('afterAttempt', () => {
  it('counts failures and blocks at the threshold', () => {
    const two = fail(2, null, 0)!;
    expect(two.failures).toBe(2);
    expect(blockedFor(two, at(0))).toBe(0);
    const three = fail(1, two, 1000)!;
    expect(blockedFor(three, at(1000))).toBe(10_000);
    expect(blockedFor(three, at(11_000))).toBe(0);
  });

  it('starts a new window once the old one has passed', () => {
    const two = fail(2, null, 0)!;
    const later = afterAttempt(two, 'k', at(61_000), policy);
    expect(later.failures).toBe(1);
    expect(later.blockedUntil).toBeNull();
  });

  it('doubles each block in a row up to the maximum, and forgets after a quiet window', () => {
    const first = fail(3, null, 0)!;
    expect(first.blockedUntil!.getTime() - at(0).getTime()).toBe(10_000);
    const second = fail(3, first, 20_000)!;
    expect(second.blockedUntil!.getTime() - at(20_000).getTime()).toBe(20_000);
    const third = fail(3, second, 50_000)!;
    expect(third.blockedUntil!.getTime() - at(50_000).getTime()).toBe(35_000);
    const quiet = fail(3, third, 50_000 + 35_000 + 61_000 + 61_000)!;
    expect(quiet.blockedUntil!.getTime() - at(50_000 + 35_000 + 122_000).getTime()).toBe(10_000);
  });
});

describe('reserveAttempt', () => {
  it('counts an attempt while the key is open, and the one reaching the limit is admitted and starts the block', () => {
    const first = reserveAttempt(null, 'k', at(0), policy);
    expect(first).toEqual({ waitMs: 0, next: { key: 'k', failures: 1, windowStartedAt: at(0), blockedUntil: null, blocks: 0 } });
    const third = reserveAttempt(fail(2, null, 0), 'k', at(1000), policy);
    expect(third.waitMs).toBe(0);
    expect(third.next?.blockedUntil).toEqual(at(11_000));
  });

  it('refuses while blocked with the ms left, counting nothing', () => {
    expect(reserveAttempt(fail(3, null, 0), 'k', at(4000), policy)).toEqual({ waitMs: 6000, next: null });
    expect(reserveAttempt(fail(3, null, 0), 'k', at(10_000), policy).waitMs).toBe(0);
  });
});

describe('afterRelease', () => {
  it('gives one attempt back within the window', () => {
    expect(afterRelease(fail(2, null, 0), at(500), policy)).toMatchObject({ failures: 1, windowStartedAt: at(0), blockedUntil: null });
  });

  it('changes nothing without a counter, below zero, once the window is over, or during a block', () => {
    expect(afterRelease(null, at(0), policy)).toBeNull();
    expect(afterRelease(afterRelease(fail(1, null, 0), at(0), policy), at(0), policy)).toBeNull();
    expect(afterRelease(fail(2, null, 0), at(61_000), policy)).toBeNull();
    expect(afterRelease(fail(3, null, 0), at(1000), policy)).toBeNull();
  });
});
