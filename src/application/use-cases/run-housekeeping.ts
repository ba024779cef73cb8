import type { ActivityLog, Clock, HousekeepingLease, HousekeepingLeases, HousekeepingStep } from '../ports.js';

/** How one housekeeping run went, by step name: run here, left to the instance holding its lease, or failed (logged). */
export interface HousekeepingOutcome {
  readonly ran: readonly string[];
  readonly heldElsewhere: readonly string[];
  readonly failed: readonly string[];
}

/**
 * Upkeep after listening and then on a schedule: each step in turn, each under its own lease (renewed
 * every third of its lifetime while the step runs, released after it), so one instance at a time runs
 * a given step and a lease lost or held elsewhere affects that step only. A step marked `everyInstance`
 * works on this instance's own resources and runs without a lease. A failing step is logged and the
 * run goes on with the next; the next run (see HousekeepingSchedule) tries it again.
 */
export class RunHousekeeping {
  constructor(
    private readonly leases: HousekeepingLeases,
    private readonly clock: Clock,
    private readonly log: ActivityLog,
    private readonly steps: readonly HousekeepingStep[],
  ) {}

  async execute(): Promise<HousekeepingOutcome> {
    const outcome = { ran: [] as string[], heldElsewhere: [] as string[], failed: [] as string[] };
    for (const step of this.steps) {
      const lease = step.everyInstance ? null : this.leases.forStep(step.name);
      try {
        if (lease && !(await lease.acquire(this.clock.now()))) {
          this.log.info({ step: step.name }, 'housekeeping step left to the instance holding its lease');
          outcome.heldElsewhere.push(step.name);
          continue;
        }
      } catch (err) {
        this.log.warn({ step: step.name, err }, 'housekeeping step failed; the next run tries it again');
        outcome.failed.push(step.name);
        continue;
      }
      outcome[await this.run(step, lease)].push(step.name);
    }
    return outcome;
  }

  private async run(step: HousekeepingStep, lease: HousekeepingLease | null): Promise<'ran' | 'failed'> {
    const renewal = lease ? setInterval(() => void this.renew(step, lease), lease.ttlMs / 3) : undefined;
    renewal?.unref();
    try {
      this.log.info({ step: step.name, ...(await step.run()) }, 'housekeeping step done');
      return 'ran';
    } catch (err) {
      this.log.warn({ step: step.name, err }, 'housekeeping step failed; the next run tries it again');
      return 'failed';
    } finally {
      clearInterval(renewal);
      await lease?.release().catch((err: unknown) => this.log.warn({ step: step.name, err }, 'housekeeping lease not released; it expires on its own'));
    }
  }

  private async renew(step: HousekeepingStep, lease: HousekeepingLease): Promise<void> {
    try {
      if (!(await lease.renew(this.clock.now()))) {
        this.log.warn({ step: step.name }, 'housekeeping lease lost while running: another instance may run this step at the same time');
      }
    } catch (err) {
      this.log.warn({ step: step.name, err }, 'housekeeping lease not renewed');
    }
  }
}
