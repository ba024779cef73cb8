import type { Request, RequestHandler } from 'express';
import { addressBucket } from '../../domain/client-address.js';
import { rateLimited } from '../../domain/error-catalogue.js';
import type { RateLimitedError } from '../../domain/errors.js';
import { SharedBudget, type RateCounter } from './shared-budget.js';
import { pathPattern } from './secret-check-lane.js';

/** Request budgets per client address; 0 turns a budget off. */
export interface RateLimitSettings {
  /** Requests per address per minute, over every route except the health probes. */
  readonly perMinute: number;
  /** Registration attempts per address per hour. */
  readonly registrationsPerHour: number;
  /** Counters every instance shares (MongoDB); without one each process counts alone. */
  readonly shared?: RateCounter | undefined;
  /** How long a request waits for the shared counter before this process decides it alone (default SHARED_LATENCY_BUDGET_MS). */
  readonly sharedLatencyBudgetMs?: number;
}

/** Fixed-window hit counters per key, kept in this process's memory. */
export class FixedWindowLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly limit: number, private readonly windowMs: number, private readonly now: () => number = Date.now) {}

  /** Counts one hit; returns the seconds to wait when the key is over its budget, else 0. */
  hit(key: string): number {
    const now = this.now();
    if (this.windows.size > 10_000) this.sweep(now);
    let w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs) {
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    w.count += 1;
    return w.count > this.limit ? Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000)) : 0;
  }

  private sweep(now: number): void {
    for (const [key, w] of this.windows) if (now - w.start >= this.windowMs) this.windows.delete(key);
  }
}

const HEALTH = new Set(['/healthz', '/readyz']);

/** One budget: the seconds a key must wait after this hit (0: within budget); counted in memory, it answers at once. */
type Budget = (key: string) => number | Promise<number>;

/**
 * A budget over the shared counters, reserved in batches (SharedBudget: no store write per request);
 * when the store does not answer, or not within its latency budget, this process's own counter decides
 * instead (a budget per instance for that while, never a request refused for the outage).
 */
function budget(limit: number, windowMs: number, settings: RateLimitSettings, clock: () => Date): Budget {
  const local = new FixedWindowLimiter(limit, windowMs, () => clock().getTime());
  if (!settings.shared) return (key) => local.hit(key);
  const sharedBudget = new SharedBudget(settings.shared, { limit, windowMs, clock, local: (key) => local.hit(key), latencyBudgetMs: settings.sharedLatencyBudgetMs });
  return (key) => sharedBudget.hit(key);
}

/**
 * Per-address budgets (RES-02, AUTH-08): every request counts against the minute budget, and
 * registration attempts also against the hourly one. Over budget is 429 with Retry-After;
 * `refuse` adds the response headers and hands the error on.
 */
export function rateLimits(
  settings: RateLimitSettings,
  refuse: (error: RateLimitedError) => RequestHandler,
  clock: () => Date = () => new Date(),
): RequestHandler {
  const perMinute = settings.perMinute > 0 ? budget(settings.perMinute, 60_000, settings, clock) : null;
  const registrations = settings.registrationsPerHour > 0 ? budget(settings.registrationsPerHour, 3_600_000, settings, clock) : null;
  // Matched as the router matches it (case-sensitively, one optional trailing slash), so no spelling routes past the budget.
  const registration = pathPattern('/api/auth/register');
  const isRegistration = (req: Request) => req.method === 'POST' && registration.test(req.path);
  return (req, res, next) => {
    if (HEALTH.has(req.path)) return next();
    const key = addressBucket(req.ip);
    const minute = perMinute?.(`minute:${key}`) ?? 0;
    const registration = registrations && isRegistration(req) ? registrations(`register:${key}`) : 0;
    const decide = (wait: number) => {
      if (wait === 0) return next();
      refuse(rateLimited(wait))(req, res, next);
    };
    // Counted in memory (no shared counter): decided at once, without a promise.
    if (typeof minute === 'number' && typeof registration === 'number') return decide(Math.max(minute, registration));
    Promise.all([minute, registration]).then((waits) => decide(Math.max(...waits)), next);
  };
}
