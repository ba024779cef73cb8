import type { Logger } from 'pino';

/** Keeps housekeeping to one instance at a time (MongoDB: a lease document with an expiry). */
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

/**
 * Runs work under the lease, renewed while it runs and released at the end, or at once without a
 * lease (SQLite and memory: one process owns the store). False when another instance holds the lease.
 */
export async function underLease(lease: HousekeepingLease | null, work: () => Promise<void>, logger: Logger): Promise<boolean> {
  if (!lease) {
    await work();
    return true;
  }
  if (!(await lease.acquire(new Date()))) return false;
  const renewal = setInterval(() => {
    lease.renew(new Date()).then(
      (held) => held || logger.warn('housekeeping lease lost while running: another instance may sweep at the same time'),
      (err: unknown) => logger.warn({ err }, 'housekeeping lease not renewed'),
    );
  }, lease.ttlMs / 3);
  renewal.unref();
  try {
    await work();
  } finally {
    clearInterval(renewal);
    await lease.release().catch((err: unknown) => logger.warn({ err }, 'housekeeping lease not released; it expires on its own'));
  }
  return true;
}
