import type { ActivityLog, Clock, HousekeepingLease, HousekeepingStep } from '../ports.js';

/** How housekeeping ended here: every step run, or left to the instance holding the lease. */
export type HousekeepingOutcome = 'done' | 'held-elsewhere';

/**
 * Start-up upkeep after listening: each step in turn, under the lease (renewed every third of its
 * lifetime while the steps run, released at the end) so one instance at a time does it. A failing
 * step stops the rest and is thrown; the next start runs them all again.
 */
export class RunHousekeeping {
  constructor(
    private readonly lease: HousekeepingLease,
    private readonly clock: Clock,
    private readonly log: ActivityLog,
    private readonly steps: readonly HousekeepingStep[],
  ) {}

  async execute(): Promise<HousekeepingOutcome> {
    if (!(await this.lease.acquire(this.clock.now()))) {
      this.log.info({}, 'housekeeping left to the instance holding its lease');
      return 'held-elsewhere';
    }
    const renewal = setInterval(() => void this.renew(), this.lease.ttlMs / 3);
    renewal.unref();
    try {
      for (const step of this.steps) this.log.info({ step: step.name, ...(await step.run()) }, 'housekeeping step done');
    } finally {
      clearInterval(renewal);
      await this.lease.release().catch((err: unknown) => this.log.warn({ err }, 'housekeeping lease not released; it expires on its own'));
    }
    return 'done';
  }

  private async renew(): Promise<void> {
    try {
      if (!(await this.lease.renew(this.clock.now()))) this.log.warn({}, 'housekeeping lease lost while running: another instance may sweep at the same time');
    } catch (err) {
      this.log.warn({ err }, 'housekeeping lease not renewed');
    }
  }
}
