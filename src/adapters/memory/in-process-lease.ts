import type { HousekeepingLease, HousekeepingLeases } from '../../application/ports.js';

/** The housekeeping lease of a store one process owns (memory, SQLite): held by one run at a time, never lost. */
export class InProcessLease implements HousekeepingLease {
  readonly ttlMs = 60_000;
  private held = false;

  /** Takes the lease; false while another run in this process holds it. */
  async acquire(): Promise<boolean> {
    if (this.held) return false;
    this.held = true;
    return true;
  }

  /** Nothing else can take it: true while held. */
  async renew(): Promise<boolean> {
    return this.held;
  }

  /** Frees it for the next run. */
  async release(): Promise<void> {
    this.held = false;
  }
}

/** One InProcessLease per housekeeping step. */
export class InProcessLeases implements HousekeepingLeases {
  private readonly leases = new Map<string, InProcessLease>();

  forStep(step: string): InProcessLease {
    let lease = this.leases.get(step);
    if (!lease) this.leases.set(step, (lease = new InProcessLease()));
    return lease;
  }
}
