// The runtime ports: time, ids, and the housekeeping lease, steps and log.

export interface Clock {
  now(): Date;
}

export interface IdGenerator {
  next(): string;
}

/** Keeps one housekeeping step to one instance at a time (MongoDB: a lease document with an expiry). */
export interface HousekeepingLease {
  /** How long a taken or renewed lease lasts; it is renewed every third of that while the work runs. */
  readonly ttlMs: number;
  /** Takes the lease; false when another instance holds it. */
  acquire(now: Date): Promise<boolean>;
  /** Extends the lease held; false when it was lost. */
  renew(now: Date): Promise<boolean>;
  /** Gives the lease up. */
  release(): Promise<void>;
}

/** The leases of the housekeeping steps, one per step, so each step runs on one instance at a time. */
export interface HousekeepingLeases {
  /** The lease of the step of that name. */
  forStep(step: string): HousekeepingLease;
}

/** One piece of upkeep run after listening and then on a schedule: idempotent, bounded in memory, safe to cut short and run again. */
export interface HousekeepingStep {
  readonly name: string;
  /** Work on this instance's own resources (its temp folder): run by every instance, without a lease. */
  readonly everyInstance?: boolean;
  /** Does the work; returns counts to log (what was removed, migrated, kept). */
  run(): Promise<object>;
}

/** Where background work reports progress and trouble (the service log). */
export interface ActivityLog {
  /** Something done. */
  info(details: object, message: string): void;
  /** Something that went wrong without stopping the work. */
  warn(details: object, message: string): void;
}

/**
 * Fixed-window hit counters kept in a store several processes share (MongoDB for every instance; any
 * store several workers write), so N processes do not allow N times a request budget.
 */
export interface RateCounter {
  /**
   * Adds `hits` to key's count in the fixed window of windowMs holding now, in one atomic step across
   * every process sharing the counter; the count after the addition and when the window ends.
   */
  add(key: string, hits: number, windowMs: number, now: Date): Promise<{ count: number; resetAt: Date }>;
}
