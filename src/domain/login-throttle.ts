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

/** SSO starts and callbacks per client address: 150 in 15 minutes, then a block of 5 minutes growing to an hour. */
export const OIDC_ATTEMPT_POLICY: ThrottlePolicy = { maxFailures: 150, windowMs: 15 * MINUTE, blockMs: 5 * MINUTE, maxBlockMs: 60 * MINUTE };

export function blockedFor(counter: ThrottleCounter | null, now: Date): number {
  if (!counter?.blockedUntil) return 0;
  return Math.max(0, counter.blockedUntil.getTime() - now.getTime());
}

/** The counter after one more failure at `now`. Pure: stores apply it atomically. */
export function afterFailure(counter: ThrottleCounter | null, key: string, now: Date, policy: ThrottlePolicy): ThrottleCounter {
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
