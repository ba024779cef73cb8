import type { RateCounter } from '../../src/application/ports.js';

/**
 * The shared counter as a store keeps it, in this process: one atomic add per call, answered on a later
 * turn of the event loop (as a store answers), or held until `release` while `holding` (a slow store).
 */
export class MemoryRateCounter implements RateCounter {
  readonly counts = new Map<string, number>();
  calls = 0;
  holding = false;
  failing = false;
  private held: (() => void)[] = [];

  async add(key: string, hits: number, windowMs: number, now: Date): Promise<{ count: number; resetAt: Date }> {
    this.calls += 1;
    if (this.holding) await new Promise<void>((resolve) => this.held.push(resolve));
    else await new Promise((resolve) => setImmediate(resolve));
    if (this.failing) throw new Error('the store does not answer');
    const start = Math.floor(now.getTime() / windowMs) * windowMs;
    const id = `${windowMs}:${start}:${key}`;
    const count = (this.counts.get(id) ?? 0) + hits;
    this.counts.set(id, count);
    return { count, resetAt: new Date(start + windowMs) };
  }

  /** Lets every held call through. */
  release(): void {
    this.holding = false;
    for (const resolve of this.held.splice(0)) resolve();
  }
}
