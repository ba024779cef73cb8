import { describe, expect, it } from 'vitest';
import { FixedWindowLimiter } from '../../../src/adapters/http/rate-limit.js';
import { SharedBudget } from '../../../src/adapters/http/shared-budget.js';
import { MemoryRateCounter } from '../../support/memory-rate-counter.js';

const MINUTE = 60_000;
const at = (ms: number) => new Date(Date.UTC(2026, 0, 1, 10, 0, 0) + ms);

/** One process's budget of `limit` a minute over the shared counter, its fallback counting alone. */
function processBudget(counter: MemoryRateCounter, limit: number, now: () => Date, budgetSpent?: () => Promise<void>) {
  const local = new FixedWindowLimiter(limit, MINUTE, () => now().getTime());
  return new SharedBudget(counter, { limit, windowMs: MINUTE, clock: now, local: (key) => local.hit(key), ...(budgetSpent ? { budgetSpent } : {}) });
}

const admitted = (waits: readonly number[]) => waits.filter((w) => w === 0).length;

describe('SharedBudget: a request budget reserved from a shared counter in batches', () => {
  it('admits exactly the limit across two processes when 150 requests arrive at once, 75 at each', async () => {
    const counter = new MemoryRateCounter();
    const [a, b] = [processBudget(counter, 100, () => at(0)), processBudget(counter, 100, () => at(0))];
    const waits = await Promise.all(Array.from({ length: 150 }, (_, i) => (i % 2 === 0 ? a : b).hit('addr')));
    expect(admitted(waits)).toBe(100);
    expect(waits.filter((w) => w > 0).every((w) => w === 60)).toBe(true);
  });

  it('never admits more than the limit, whatever the interleaving of two processes, one request at a time', async () => {
    const counter = new MemoryRateCounter();
    const budgets = [processBudget(counter, 50, () => at(1_000)), processBudget(counter, 50, () => at(1_000))];
    const waits: number[] = [];
    for (let i = 0; i < 120; i++) waits.push(await budgets[(i * 7) % 3 === 0 ? 0 : 1]!.hit('addr'));
    expect(admitted(waits)).toBeLessThanOrEqual(50);
    // Units one process reserved ahead and did not spend are at most a quarter of what was left, a twentieth of the limit each.
    expect(admitted(waits)).toBeGreaterThanOrEqual(50 - 2 * Math.ceil(50 / 20));
  });

  it('costs one counter write per batch, not per request: 1,000 requests of one address take a dozen writes', async () => {
    const counter = new MemoryRateCounter();
    const budget = processBudget(counter, 6_000, () => at(0));
    for (let i = 0; i < 1_000; i++) expect(await budget.hit('addr')).toBe(0);
    expect(counter.calls).toBeLessThanOrEqual(12);
  });

  it('answers at once, without the counter, while units are at hand and once the window is spent', async () => {
    const counter = new MemoryRateCounter();
    const budget = processBudget(counter, 2, () => at(30_000));
    expect(await budget.hit('addr')).toBe(0);
    expect(await budget.hit('addr')).toBe(0);
    expect(await budget.hit('addr')).toBe(30);
    const calls = counter.calls;
    expect(budget.hit('addr')).toBe(30);
    expect(counter.calls).toBe(calls);
  });

  it('does not hold a request past the latency budget while the counter is slow: this process decides it alone', async () => {
    const counter = new MemoryRateCounter();
    counter.holding = true;
    const budget = processBudget(counter, 3, () => at(0), () => Promise.resolve());
    const waits = [];
    for (let i = 0; i < 5; i++) waits.push(await budget.hit('addr'));
    expect(waits).toEqual([0, 0, 0, 60, 60]);
    counter.release();
  });

  it('counts in this process every hit it admits, so a counter turning slow midway never lets one process past the limit', async () => {
    const counter = new MemoryRateCounter();
    let late = false;
    const budget = processBudget(counter, 3, () => at(0), () => (late ? Promise.resolve() : new Promise<void>(() => undefined)));
    expect([await budget.hit('addr'), await budget.hit('addr')]).toEqual([0, 0]);
    counter.holding = true;
    late = true;
    expect([await budget.hit('addr'), await budget.hit('addr'), await budget.hit('addr')]).toEqual([0, 60, 60]);
    counter.release();
  });

  it('does not let a late batch\'s units admit past the limit what this process already admitted alone meanwhile', async () => {
    const counter = new MemoryRateCounter();
    counter.holding = true;
    let late = true;
    const budget = processBudget(counter, 3, () => at(0), () => (late ? Promise.resolve() : new Promise<void>(() => undefined)));
    expect(await budget.hit('addr')).toBe(0);
    late = false;
    counter.release();
    const waits = [];
    for (let i = 0; i < 4; i++) waits.push(await budget.hit('addr'));
    expect(waits).toEqual([0, 0, 60, 60]);
  });

  it('decides in this process alone while the counter fails, and never refuses a request for the outage', async () => {
    const counter = new MemoryRateCounter();
    counter.failing = true;
    const budget = processBudget(counter, 2, () => at(0));
    const waits = [];
    for (let i = 0; i < 3; i++) waits.push(await budget.hit('addr'));
    expect(waits).toEqual([0, 0, 60]);
  });

  it('starts each window afresh, and keeps addresses apart', async () => {
    const counter = new MemoryRateCounter();
    let now = at(0);
    const budget = processBudget(counter, 1, () => now);
    expect([await budget.hit('a'), await budget.hit('a'), await budget.hit('b')]).toEqual([0, 60, 0]);
    now = at(MINUTE);
    expect(await budget.hit('a')).toBe(0);
  });
});
