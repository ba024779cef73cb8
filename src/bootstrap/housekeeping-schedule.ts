import type { Logger } from 'pino';
import type { HousekeepingOutcome } from '../index.js';

/** How long after a complete run the next one starts: the sweeps catch what a crash left since. */
export const HOUSEKEEPING_INTERVAL_MS = 6 * 60 * 60_000;
/** How long after a run with a failed step, or a step left to another instance, the next one starts. */
export const HOUSEKEEPING_RETRY_MS = 10 * 60_000;

/**
 * Runs housekeeping once after listening, then again on a schedule: after HOUSEKEEPING_INTERVAL_MS,
 * or after HOUSEKEEPING_RETRY_MS when a step failed or was held by another instance (which may die
 * before finishing it), so a lost lease, a SIGTERM or an outage never skips a step for good. Timers
 * are unref'd; `stop` cancels the next run.
 */
export class HousekeepingSchedule {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly run: () => Promise<HousekeepingOutcome>,
    private readonly logger: Pick<Logger, 'error'>,
    private readonly delays = { intervalMs: HOUSEKEEPING_INTERVAL_MS, retryMs: HOUSEKEEPING_RETRY_MS },
  ) {}

  /** Starts the first run now; resolves with its outcome ('failed': it threw, logged) and never rejects. */
  start(): Promise<HousekeepingOutcome | 'failed'> {
    return this.runOnce();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private async runOnce(): Promise<HousekeepingOutcome | 'failed'> {
    let outcome: HousekeepingOutcome | 'failed';
    try {
      outcome = await this.run();
    } catch (err) {
      if (!this.stopped) this.logger.error({ err }, 'housekeeping failed; it runs again shortly');
      outcome = 'failed';
    }
    const again = outcome === 'failed' || outcome.failed.length > 0 || outcome.heldElsewhere.length > 0;
    if (!this.stopped) {
      this.timer = setTimeout(() => void this.runOnce(), again ? this.delays.retryMs : this.delays.intervalMs);
      this.timer.unref();
    }
    return outcome;
  }
}
