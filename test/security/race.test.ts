import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Race, RaceOutcome } from './race/race.js';
import { raceWorld, STORES_UNDER_RACE, type RaceWorld, type StoreUnderRace } from './race/race-world.js';
import { settledBursts, type BurstSpread } from './race/race-cluster.js';
import { unreachableOverrides } from './race/race-server.js';
import { koboRaces } from './race/kobo.races.js';
import { budgetRaces, lockoutRaces, throttleRaces } from './race/throttle.races.js';
import { kosyncCapRaces, lostUpdateRaces, uniquenessRaces } from './race/writes.races.js';
import type { ContainerOverrides } from '../../src/bootstrap/container.js';

/** Login policies no burst reaches, for races about what the store keeps rather than who gets in. */
const UNTHROTTLED = {
  account: { maxFailures: 1_000_000, windowMs: 60_000, blockMs: 1, maxBlockMs: 1 },
  address: { maxFailures: 1_000_000, windowMs: 60_000, blockMs: 1, maxBlockMs: 1 },
};

/**
 * The race suite: every throttle and every read-modify-write attacked with 100+ requests at once,
 * on every store. Prints `RACE: N races run, 0 limits exceeded, 0 lost updates, 0 5xx`.
 */
const outcomes: { id: string; outcome: RaceOutcome }[] = [];
/** Every burst a store of several workers answered, with the workers that served it. */
const spreads = new Map<string, BurstSpread[]>();

afterAll(() => {
  const sum = (k: 'limitsExceeded' | 'lostUpdates' | 'fiveXx') => outcomes.reduce((n, o) => n + o.outcome[k], 0);
  console.log(`RACE: ${outcomes.length} races run, ${sum('limitsExceeded')} limits exceeded, ${sum('lostUpdates')} lost updates, ${sum('fiveXx')} 5xx`);
  for (const [store, bursts] of spreads) {
    const byWorker: Record<number, number> = {};
    for (const b of bursts) for (const [slot, n] of Object.entries(b.byWorker)) byWorker[Number(slot)] = (byWorker[Number(slot)] ?? 0) + n;
    const spread = bursts.filter((b) => Object.keys(b.byWorker).length > 1).length;
    const served = Object.entries(byWorker).map(([slot, n]) => `worker ${slot} ${n}`).join(', ');
    console.log(`RACE WORKERS: ${store}: ${spread} of ${bursts.length} bursts (${bursts.reduce((n, b) => n + b.requests, 0)} requests) served by more than one worker; requests served: ${served}`);
  }
});

function raceSuite(store: StoreUnderRace, title: string, races: readonly Race[], env: Record<string, string> = {}, overrides: ContainerOverrides = {}): void {
  describe(`${title} on ${store.name}`, () => {
    const unreachable = unreachableOverrides(store, overrides);
    if (unreachable !== undefined) {
      for (const r of races) it.skip(`${r.id}: ${r.name} [skipped on ${store.name}: ${unreachable}]`, () => undefined);
      return;
    }
    let world: RaceWorld | undefined;
    beforeAll(async () => {
      world = await raceWorld(store, env, overrides);
    }, 60_000);
    afterAll(async () => world?.close());

    for (const r of races) {
      const reason = (r.needs ?? []).map((need) => store.limits[need]).find((why) => why !== undefined);
      if (reason !== undefined) {
        it.skip(`${r.id}: ${r.name} [skipped on ${store.name}: ${reason}]`, () => undefined);
        continue;
      }
      it(`${r.id}: ${r.name}`, async () => {
        const outcome = await r.run(world!);
        outcomes.push({ id: `${store.name} ${r.id}`, outcome });
        expect({ limitsExceeded: outcome.limitsExceeded, lostUpdates: outcome.lostUpdates, fiveXx: outcome.fiveXx }, outcome.note)
          .toEqual({ limitsExceeded: 0, lostUpdates: 0, fiveXx: 0 });
        if (store.workers === undefined) return;
        // Every burst of the race went to every worker: the race was run across processes, not inside one.
        const bursts = await settledBursts();
        spreads.set(store.name, [...(spreads.get(store.name) ?? []), ...bursts]);
        expect(bursts.length, 'bursts logged').toBeGreaterThan(0);
        const slots = Array.from({ length: store.workers }, (_, slot) => slot);
        expect(bursts.filter((b) => !slots.every((slot) => (b.byWorker[slot] ?? 0) > 0)), 'bursts not served by every worker').toEqual([]);
      }, 60_000);
    }
  });
}

for (const store of STORES_UNDER_RACE) {
  raceSuite(store, 'secret checks', throttleRaces);
  raceSuite(store, 'lockouts that spare their owners', lockoutRaces);
  raceSuite(store, 'Kobo sync URLs', koboRaces);
  raceSuite(store, 'uniqueness', uniquenessRaces);
  raceSuite(store, 'lost updates', lostUpdateRaces);
  raceSuite(store, 'request budgets', budgetRaces, { REGISTER_LIMIT_PER_HOUR: '30', RATE_LIMIT_PER_MINUTE: '100' });
  raceSuite(store, 'KOReader document cap', kosyncCapRaces, {}, { loginPolicies: UNTHROTTLED });
}
