import { afterEach, describe, expect, it, vi } from 'vitest';
import { InProcessLease } from '../../../src/adapters/memory/in-process-lease.js';
import type { HousekeepingLease, HousekeepingStep } from '../../../src/application/ports.js';
import { RunHousekeeping } from '../../../src/application/use-cases/run-housekeeping.js';
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
  it('runs every step in order under the lease, logs each report, and releases the lease', async () => {
    const lease = new InProcessLease();
    const log = aLog();
    const ran: string[] = [];
    const steps = [step('first', ran, { removed: 2 }), step('second', ran, { kept: 5 })];
    expect(await new RunHousekeeping(lease, new FakeClock(), log, steps).execute()).toBe('done');
    expect(ran).toEqual(['first', 'second']);
    expect(log.lines).toEqual([
      { level: 'info', message: 'housekeeping step done', details: { step: 'first', removed: 2 } },
      { level: 'info', message: 'housekeeping step done', details: { step: 'second', kept: 5 } },
    ]);
    expect(await lease.acquire()).toBe(true);
  });

  it('leaves the work to the holder while another run holds the lease, running no step', async () => {
    const lease = new InProcessLease();
    await lease.acquire();
    const ran: string[] = [];
    const log = aLog();
    expect(await new RunHousekeeping(lease, new FakeClock(), log, [step('only', ran)]).execute()).toBe('held-elsewhere');
    expect(ran).toEqual([]);
    expect(log.lines.map((l) => l.message)).toEqual(['housekeeping left to the instance holding its lease']);
  });

  it('stops at a failing step, throws its error, skips the later steps and still releases the lease', async () => {
    const lease = new InProcessLease();
    const ran: string[] = [];
    const failing: HousekeepingStep = { name: 'broken', run: async () => { throw new Error('store went away'); } };
    const run = new RunHousekeeping(lease, new FakeClock(), aLog(), [step('first', ran), failing, step('last', ran)]);
    await expect(run.execute()).rejects.toThrow('store went away');
    expect(ran).toEqual(['first']);
    expect(await lease.acquire()).toBe(true);
  });

  it('renews the lease every third of its lifetime while a step runs, and warns once the lease is lost', async () => {
    vi.useFakeTimers();
    const lease = new LosableLease();
    const log = aLog();
    let finish = (): void => undefined;
    const slow: HousekeepingStep = { name: 'slow', run: () => new Promise<object>((resolve) => { finish = () => resolve({}); }) };
    const running = new RunHousekeeping(lease, new FakeClock(), log, [slow]).execute();
    await vi.advanceTimersByTimeAsync(1_000);
    expect(log.lines.filter((l) => l.level === 'warn')).toEqual([]);
    lease.lost = true;
    await vi.advanceTimersByTimeAsync(1_000);
    expect(log.lines.filter((l) => l.level === 'warn').map((l) => l.message))
      .toEqual(['housekeeping lease lost while running: another instance may sweep at the same time']);
    finish();
    expect(await running).toBe('done');
    expect(lease.released).toBe(1);
  });
});
