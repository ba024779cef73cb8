import { afterEach, describe, expect, it, vi } from 'vitest';
import { InProcessLeases } from '../../../src/adapters/memory/in-process-lease.js';
import type { HousekeepingLease, HousekeepingStep } from '../../../src/application/ports.js';
import { RunHousekeeping } from '../../../src/application/use-cases/run-housekeeping.js';
import { HousekeepingSchedule } from '../../../src/bootstrap/housekeeping-schedule.js';
import { FakeClock } from '../../support/clock.js';

/** The service log as lines: level, message and details. */
function aLog() {
  const lines: { level: string; message: string; details: object }[] = [];
  const at = (level: string) => (details: object, message: string) => void lines.push({ level, message, details });
  return { lines, info: at('info'), warn: at('warn') };
}

const step = (name: string, ran: string[], report: object = {}): HousekeepingStep => ({ name, run: async () => (ran.push(name), report) });

/** A lease another instance can take from under us: renewals answer false once `lost` is set. */
class LosableLease implements HousekeepingLease {
  readonly ttlMs = 3_000;
  lost = false;
  released = 0;
  async acquire(): Promise<boolean> { return true; }
  async renew(): Promise<boolean> { return !this.lost; }
  async release(): Promise<void> { this.released += 1; }
}

afterEach(() => vi.useRealTimers());

describe('RunHousekeeping', () => {
  it('runs every step in order, each under its own lease, logs each report, and releases each lease', async () => {
    const leases = new InProcessLeases();
    const log = aLog();
    const ran: string[] = [];
    const steps = [step('first', ran, { removed: 2 }), step('second', ran, { kept: 5 })];
    expect(await new RunHousekeeping(leases, new FakeClock(), log, steps).execute()).toEqual({ ran: ['first', 'second'], heldElsewhere: [], failed: [] });
    expect(ran).toEqual(['first', 'second']);
    expect(log.lines).toEqual([
      { level: 'info', message: 'housekeeping step done', details: { step: 'first', removed: 2 } },
      { level: 'info', message: 'housekeeping step done', details: { step: 'second', kept: 5 } },
    ]);
    expect(await leases.forStep('first').acquire()).toBe(true);
    expect(await leases.forStep('second').acquire()).toBe(true);
  });

  it('leaves a step to the holder of its lease and runs the others; a step of every instance needs no lease', async () => {
    const leases = new InProcessLeases();
    await leases.forStep('held').acquire();
    await leases.forStep('own temp files').acquire();
    const ran: string[] = [];
    const log = aLog();
    const steps = [step('held', ran), step('free', ran), { ...step('own temp files', ran), everyInstance: true }];
    expect(await new RunHousekeeping(leases, new FakeClock(), log, steps).execute()).toEqual({ ran: ['free', 'own temp files'], heldElsewhere: ['held'], failed: [] });
    expect(ran).toEqual(['free', 'own temp files']);
    expect(log.lines[0]).toEqual({ level: 'info', message: 'housekeeping step left to the instance holding its lease', details: { step: 'held' } });
  });

  it('logs a failing step, goes on with the next, and still releases the failed step\'s lease', async () => {
    const leases = new InProcessLeases();
    const ran: string[] = [];
    const log = aLog();
    const failing: HousekeepingStep = { name: 'broken', run: async () => { throw new Error('store went away'); } };
    const outcome = await new RunHousekeeping(leases, new FakeClock(), log, [step('first', ran), failing, step('last', ran)]).execute();
    expect(outcome).toEqual({ ran: ['first', 'last'], heldElsewhere: [], failed: ['broken'] });
    expect(log.lines.filter((l) => l.level === 'warn').map((l) => l.message)).toEqual(['housekeeping step failed; the next run tries it again']);
    expect(await leases.forStep('broken').acquire()).toBe(true);
  });

  it('renews the lease every third of its lifetime while a step runs, and warns once the lease is lost', async () => {
    vi.useFakeTimers();
    const lease = new LosableLease();
    const log = aLog();
    let finish = (): void => undefined;
    const slow: HousekeepingStep = { name: 'slow', run: () => new Promise<object>((resolve) => { finish = () => resolve({}); }) };
    const running = new RunHousekeeping({ forStep: () => lease }, new FakeClock(), log, [slow]).execute();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(log.lines.filter((l) => l.level === 'warn')).toEqual([]);
    lease.lost = true;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(log.lines.filter((l) => l.level === 'warn').map((l) => l.message))
      .toEqual(['housekeeping lease lost while running: another instance may run this step at the same time']);
    finish();
    expect(await running).toEqual({ ran: ['slow'], heldElsewhere: [], failed: [] });
    expect(lease.released).toBe(1);
  });
});

describe('HousekeepingSchedule', () => {
  const quiet = { error: () => undefined };

  it('runs again after the interval, sooner after a failed step or a step held elsewhere, and never after stop', async () => {
    vi.useFakeTimers();
    const outcomes = [
      { ran: ['a'], heldElsewhere: [], failed: ['b'] },
      { ran: ['a', 'b'], heldElsewhere: [], failed: [] },
      { ran: ['a'], heldElsewhere: ['b'], failed: [] },
    ];
    const runs: number[] = [];
    const schedule = new HousekeepingSchedule(async () => {
      runs.push(Date.now());
      return outcomes[runs.length - 1] ?? outcomes[1]!;
    }, quiet, { intervalMs: 1_000_000, retryMs: 1_000 });
    const start = Date.now();
    expect(await schedule.start()).toEqual(outcomes[0]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs.map((t) => t - start)).toEqual([0, 1_000]);
    await vi.advanceTimersByTimeAsync(999_999);
    expect(runs).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs.map((t) => t - start)).toEqual([0, 1_000, 1_001_000]);
    schedule.stop();
    await vi.advanceTimersByTimeAsync(10_000_000);
    expect(runs).toHaveLength(3);
  });

  it('answers a run that threw as failed, logs it, and retries it', async () => {
    vi.useFakeTimers();
    const errors: unknown[] = [];
    let runs = 0;
    const schedule = new HousekeepingSchedule(async () => {
      runs += 1;
      throw new Error('lease collection unreachable');
    }, { error: (details: unknown) => void errors.push(details) }, { intervalMs: 1_000_000, retryMs: 1_000 });
    expect(await schedule.start()).toBe('failed');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(2);
    expect(errors).toHaveLength(2);
    schedule.stop();
  });
});
