import { describe, expect, it } from 'vitest';
import { afterFailure, blockedFor, type ThrottleCounter, type ThrottlePolicy } from '../../../src/domain/login-throttle.js';

const policy: ThrottlePolicy = { maxFailures: 3, windowMs: 60_000, blockMs: 10_000, maxBlockMs: 35_000 };
const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);

function fail(times: number, start: ThrottleCounter | null, now: number): ThrottleCounter | null {
  let c = start;
  for (let i = 0; i < times; i++) c = afterFailure(c, 'k', at(now), policy);
  return c;
}

describe('afterFailure', () => {
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
    const later = afterFailure(two, 'k', at(61_000), policy);
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
