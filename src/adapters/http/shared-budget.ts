import type { RateCounter } from '../../application/ports.js';

export type { RateCounter };

/** How long a request waits for the shared counter before this process decides it alone. */
export const SHARED_LATENCY_BUDGET_MS = 100;

/** What a budget needs besides the counter: its local fallback, the clock, and (for tests) the latency budget's timer. */
export interface SharedBudgetOptions {
  readonly limit: number;
  readonly windowMs: number;
  readonly clock: () => Date;
  /**
   * This process's own count of the hits it admits (every one, however decided), which alone decides a
   * hit when the counter fails or is slower than the budget: the seconds to wait, or 0.
   */
  readonly local: (key: string) => number;
  /** How long a request waits for the counter (default SHARED_LATENCY_BUDGET_MS). */
  readonly latencyBudgetMs?: number | undefined;
  /** Resolves once the latency budget is spent (default: latencyBudgetMs on a timer). */
  readonly budgetSpent?: () => Promise<void>;
}

interface KeyWindow {
  readonly start: number;
  /** Units taken from the shared count for this process and not spent yet. */
  granted: number;
  /** The shared count after this process's last reservation. */
  seen: number;
  /** The next speculative reservation's size (doubles up to a twentieth of the limit). */
  chunk: number;
  /** Requests waiting for units. */
  waiting: number;
  reserving: Promise<void> | null;
}

const SWEEP_ABOVE = 10_000;

/**
 * A request budget over a shared counter that costs no store write per request: this process reserves
 * units of the limit from the shared count in batches (one atomic `add` per batch) and spends them
 * locally, so the shared count never admits more than the limit across every process. A batch is what
 * the waiting requests need, or ahead of demand a growing chunk (1, 2, 4... up to a twentieth of the
 * limit) that never exceeds a quarter of what is left; requests that find units answer at once, and
 * only a request that finds none waits, at most SHARED_LATENCY_BUDGET_MS, for the next batch. Past
 * that budget, or when the counter fails, the request is decided by this process's own count of what
 * it admitted (so one process never admits more than the limit; N processes at most N times it for
 * that while); a late batch's units are kept for the next requests.
 *
 * Tolerance: while the counter answers within the budget, all processes together admit at most the
 * limit per window, and refuse early at most the units others reserved ahead of demand and have not
 * spent (each at most a quarter of what was left when reserved; none in a burst, whose batches follow
 * demand).
 */
export class SharedBudget {
  private readonly windows = new Map<string, KeyWindow>();
  private readonly cap: number;

  constructor(private readonly counter: RateCounter, private readonly options: SharedBudgetOptions) {
    this.cap = Math.max(1, Math.ceil(options.limit / 20));
  }

  /** The seconds this hit of key must wait (0: admitted); synchronous whenever units are at hand or the window is spent. */
  hit(key: string): number | Promise<number> {
    const now = this.options.clock().getTime();
    const window = this.windowOf(key, now);
    const decided = this.decide(key, window, now);
    return decided ?? this.waitForUnits(key, window);
  }

  /** Admitted with a unit in hand, refused once the shared count has reached the limit, or undefined: units must be reserved. */
  private decide(key: string, window: KeyWindow, now: number): number | undefined {
    if (window.granted > 0) {
      window.granted -= 1;
      // Counted here too, and refused if this process already admitted the limit (some of it alone, while the counter was late).
      return this.options.local(key);
    }
    if (window.seen >= this.options.limit) return Math.max(1, Math.ceil((window.start + this.options.windowMs - now) / 1000));
    return undefined;
  }

  private async waitForUnits(key: string, window: KeyWindow): Promise<number> {
    window.waiting += 1;
    try {
      for (;;) {
        window.reserving ??= this.reserve(key, window);
        const settled = await Promise.race([window.reserving.then(() => 'reserved' as const, () => 'failed' as const), this.budgetSpent()]);
        if (settled !== 'reserved') return this.options.local(key);
        const decided = this.decide(key, window, this.options.clock().getTime());
        if (decided !== undefined) return decided;
      }
    } finally {
      window.waiting -= 1;
    }
  }

  /** One atomic add of a batch to the shared count; the units under the limit become this process's. */
  private async reserve(key: string, window: KeyWindow): Promise<void> {
    const left = this.options.limit - window.seen;
    const ahead = Math.min(window.chunk, Math.floor(left / 4));
    const units = Math.max(1, window.waiting, ahead);
    window.chunk = Math.min(this.cap, window.chunk * 2);
    try {
      const { count } = await this.counter.add(key, units, this.options.windowMs, new Date(window.start));
      window.granted += Math.max(0, Math.min(units, this.options.limit - (count - units)));
      window.seen = Math.max(window.seen, count);
    } finally {
      window.reserving = null;
    }
  }

  private windowOf(key: string, now: number): KeyWindow {
    const start = Math.floor(now / this.options.windowMs) * this.options.windowMs;
    let window = this.windows.get(key);
    if (!window || window.start !== start) {
      if (this.windows.size > SWEEP_ABOVE) this.sweep(start);
      window = { start, granted: 0, seen: 0, chunk: 1, waiting: 0, reserving: null };
      this.windows.set(key, window);
    }
    return window;
  }

  private sweep(start: number): void {
    for (const [key, window] of this.windows) if (window.start < start && window.waiting === 0) this.windows.delete(key);
  }

  private budgetSpent(): Promise<'late'> {
    const ms = this.options.latencyBudgetMs ?? SHARED_LATENCY_BUDGET_MS;
    const spent = this.options.budgetSpent?.() ?? new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
    return spent.then(() => 'late' as const);
  }
}
