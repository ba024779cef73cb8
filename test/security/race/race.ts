import type { StandInLimit } from '../../support/mongo-server.js';
import type { Answer, RaceWorld } from './race-world.js';

/** What one race found: how far a limit was passed, how many writes were lost, how many 5xx. */
export interface RaceOutcome {
  readonly limitsExceeded: number;
  readonly lostUpdates: number;
  readonly fiveXx: number;
  /** The figures behind the verdict, printed with a failure. */
  readonly note: string;
}

export interface Race {
  readonly id: string;
  readonly name: string;
  /** Guarantees the store's server must give for this race to mean anything (skipped with the reason otherwise). */
  readonly needs?: readonly StandInLimit[];
  run(world: RaceWorld): Promise<RaceOutcome>;
}

export const race = (id: string, name: string, run: Race['run'], needs?: readonly StandInLimit[]): Race => ({ id, name, run, ...(needs ? { needs } : {}) });

/** How many answers had each status, e.g. `{401: 10, 429: 140}`. */
export function tally(answers: readonly Answer[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const a of answers) counts[a.status] = (counts[a.status] ?? 0) + 1;
  return counts;
}

export const count = (answers: readonly Answer[], ...statuses: number[]) => answers.filter((a) => statuses.includes(a.status)).length;
export const fiveXx = (answers: readonly Answer[]) => answers.filter((a) => a.status >= 500).length;

/** An outcome where `allowed` answers may pass a limit of `limit`. */
export function limitOutcome(answers: readonly Answer[], allowed: number, limit: number): RaceOutcome {
  return { limitsExceeded: Math.max(0, allowed - limit), lostUpdates: 0, fiveXx: fiveXx(answers), note: `allowed ${allowed} of limit ${limit}; statuses ${JSON.stringify(tally(answers))}` };
}

export const basic = (login: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}` });
