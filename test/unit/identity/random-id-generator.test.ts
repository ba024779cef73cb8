import { describe, expect, it } from 'vitest';
import { RandomIdGenerator } from '../../../src/adapters/identity/random-id-generator.js';
import { SystemClock } from '../../../src/adapters/identity/system-clock.js';

describe('RandomIdGenerator', () => {
  it('produces URL-safe ids of at most 64 characters', () => {
    const id = new RandomIdGenerator().next();
    expect(id).toMatch(/^[0-9a-z]{36}$/);
    expect(encodeURIComponent(id)).toBe(id);
  });

  it('does not repeat and varies in its random part within one millisecond', () => {
    const ids = new RandomIdGenerator(() => 1_700_000_000_000);
    const seen = new Set(Array.from({ length: 10_000 }, () => ids.next()));
    expect(seen.size).toBe(10_000);
    const prefixes = new Set([...seen].map((id) => id.slice(0, 10)));
    expect(prefixes.size).toBe(1);
  });

  it('sorts by creation time', () => {
    let t = 1_700_000_000_000;
    const ids = new RandomIdGenerator(() => t);
    const made = [1, 5, 1000, 86_400_000, 10 ** 10].map((step) => ((t += step), ids.next()));
    expect([...made].sort()).toEqual(made);
  });

  it('carries 128 random bits: 26 base32 characters after the time', () => {
    const ids = new RandomIdGenerator(() => 0);
    const tails = Array.from({ length: 2000 }, () => ids.next().slice(10));
    expect(tails.every((t) => t.length === 26)).toBe(true);
    // Every position after the first (which carries only 3 bits) uses most of the alphabet.
    for (let pos = 1; pos < 26; pos++) expect(new Set(tails.map((t) => t[pos])).size).toBeGreaterThan(28);
  });
});

describe('SystemClock', () => {
  it('reads the wall clock', () => {
    const before = Date.now();
    const now = new SystemClock().now().getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});
