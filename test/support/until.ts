import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Asks again (every `intervalMs`) until `condition` answers true: a wait for something the server does
 * in the background (a sweep having run, readiness), with no deadline of its own, so a slow machine only
 * makes it take longer. Only the test's own timeout, a guard against a hang, ends it otherwise.
 */
export async function until(condition: () => boolean | Promise<boolean>, intervalMs = 100): Promise<void> {
  while (!(await condition())) await sleep(intervalMs);
}
