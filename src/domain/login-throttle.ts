/** Consecutive login failures counted under one key (an account or a client address). */
export interface ThrottleCounter {
  readonly key: string;
  readonly failures: number;
  readonly windowStartedAt: Date;
  readonly blockedUntil: Date | null;
  /** How many blocks this key has served in a row; each one is longer (growing backoff). */
  readonly blocks: number;
}

export interface ThrottlePolicy {
  /** Failures within the window that trigger a block. */
  readonly maxFailures: number;
  readonly windowMs: number;
  /** First block length; each further block in a row doubles it, up to maxBlockMs. */
  readonly blockMs: number;
  readonly maxBlockMs: number;
}

const MINUTE = 60_000;

/** Login throttling: 10 failures per account in 15 min, 100 per address in a day; growing blocks. */
export const DEFAULT_LOGIN_POLICIES: { readonly account: ThrottlePolicy; readonly address: ThrottlePolicy } = {
  account: { maxFailures: 10, windowMs: 15 * MINUTE, blockMs: 5 * MINUTE, maxBlockMs: 60 * MINUTE },
  address: { maxFailures: 100, windowMs: 24 * 60 * MINUTE, blockMs: 15 * MINUTE, maxBlockMs: 24 * 60 * MINUTE },
};

/** How long after its last sign-in an address keeps its own budget against its account's lockout (API.md). */
export const KNOWN_ADDRESS_MS = 30 * 24 * 60 * MINUTE;

/** SSO starts and callbacks per client address: 150 in 15 minutes, then a block of 5 minutes growing to an hour. */
export const OIDC_ATTEMPT_POLICY: ThrottlePolicy = { maxFailures: 150, windowMs: 15 * MINUTE, blockMs: 5 * MINUTE, maxBlockMs: 60 * MINUTE };

/** Milliseconds until the key's block ends at `now`; 0 when it is not blocked. */
export function blockedFor(counter: ThrottleCounter | null, now: Date): number {
  if (!counter?.blockedUntil) return 0;
  return Math.max(0, counter.blockedUntil.getTime() - now.getTime());
}

/**
 * The counter after one more attempt at `now`. The attempt that reaches `maxFailures` starts the
 * block (and is itself admitted). Pure: stores apply it atomically.
 */
export function afterAttempt(counter: ThrottleCounter | null, key: string, now: Date, policy: ThrottlePolicy): ThrottleCounter {
  const fresh = !counter || now.getTime() - counter.windowStartedAt.getTime() > policy.windowMs;
  const failures = fresh ? 1 : counter.failures + 1;
  const windowStartedAt = fresh ? now : counter.windowStartedAt;
  const cooledDown = !counter?.blockedUntil || now.getTime() - counter.blockedUntil.getTime() > policy.windowMs;
  const priorBlocks = fresh && cooledDown ? 0 : (counter?.blocks ?? 0);
  if (failures < policy.maxFailures) {
    return { key, failures, windowStartedAt, blockedUntil: counter?.blockedUntil ?? null, blocks: priorBlocks };
  }
  const length = Math.min(policy.blockMs * 2 ** priorBlocks, policy.maxBlockMs);
  return { key, failures: 0, windowStartedAt: now, blockedUntil: new Date(now.getTime() + length), blocks: priorBlocks + 1 };
}

/** What reserving one attempt decides: the ms to wait (nothing counted), or the counter to store. */
export type Reservation = { readonly waitMs: number; readonly next: null } | { readonly waitMs: 0; readonly next: ThrottleCounter };

/** Reserves one attempt: refused while blocked, else counted with `afterAttempt`. Pure. */
export function reserveAttempt(counter: ThrottleCounter | null, key: string, now: Date, policy: ThrottlePolicy): Reservation {
  const waitMs = blockedFor(counter, now);
  return waitMs > 0 ? { waitMs, next: null } : { waitMs: 0, next: afterAttempt(counter, key, now, policy) };
}

/**
 * The counter with one attempt given back (it turned out not to be a failure), or null when there is
 * nothing to change: no counter, a block in force (never lifted here), a window already over, or no
 * attempt left to give back. Pure: stores apply it atomically.
 */
export function afterRelease(counter: ThrottleCounter | null, now: Date, policy: ThrottlePolicy): ThrottleCounter | null {
  if (!counter || counter.failures === 0 || blockedFor(counter, now) > 0) return null;
  if (now.getTime() - counter.windowStartedAt.getTime() > policy.windowMs) return null;
  return { ...counter, failures: counter.failures - 1 };
}
