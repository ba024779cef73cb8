import { afterAll, describe, expect, it } from 'vitest';
import { accessAttacks } from './attacks/access.attacks.js';
import { authAttacks } from './attacks/auth.attacks.js';
import { configAttacks } from './attacks/config.attacks.js';
import { inputAttacks } from './attacks/input.attacks.js';
import { keyAttacks } from './attacks/keys.attacks.js';
import { koboAttacks } from './attacks/kobo.attacks.js';
import { kosyncAttacks } from './attacks/kosync.attacks.js';
import { closeOidc, oidcAttacks } from './attacks/oidc.attacks.js';
import { resourceAttacks } from './attacks/resources.attacks.js';
import { tokenAttacks } from './attacks/tokens.attacks.js';
import { uploadAttacks } from './attacks/upload.attacks.js';
import { NOT_APPLICABLE, PARTS_NOT_APPLICABLE, REQUIRED_ROWS } from './attacks/rows.js';
import type { Attack, Outcome } from './support/outcome.js';
import { createWorld } from './support/world.js';

const world = await createWorld();
const document = (await world.api().get('/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };

const catalogue: Attack[] = [
  ...authAttacks, ...tokenAttacks, ...keyAttacks, ...kosyncAttacks, ...koboAttacks, ...accessAttacks(document), ...inputAttacks,
  ...uploadAttacks, ...oidcAttacks, ...configAttacks, ...resourceAttacks,
];
const outcomes = new Map<string, Outcome>();

afterAll(async () => {
  const all = [...outcomes.values()];
  const line = `SECURITY: ${all.length} attacks tried, ${all.filter((o) => o.succeeded).length} succeeded, `
    + `${all.filter((o) => o.fiveXx).length} answered 5xx, ${all.filter((o) => o.stackTrace).length} stack traces, `
    + `server ${all.every((o) => o.alive) ? 'alive after each' : `down after ${all.filter((o) => !o.alive).length}`}`;
  console.log(line);
  const measured = [...outcomes].filter(([id]) => /^(AUTH-05|AUTH-06\.thousand|RES-0[13]|UP-01|UP-04|UP-07|UP-10)/.test(id));
  console.log(`SECURITY: measured: ${measured.map(([id, o]) => `${id} (${o.note})`).join('; ')}`);
  console.log(`SECURITY: not applicable here: ${PARTS_NOT_APPLICABLE.join('; ')}`);
  await closeOidc();
  await world.close();
});

describe('attack catalogue (security-bar.md section 1, embedded store)', () => {
  it('has at least 150 uniquely named cases covering every applicable row', () => {
    expect(catalogue.length).toBeGreaterThanOrEqual(150);
    expect(new Set(catalogue.map((a) => a.id)).size).toBe(catalogue.length);
    const covered = new Set(catalogue.map((a) => a.row));
    expect(REQUIRED_ROWS.filter((row) => !covered.has(row) && !(row in NOT_APPLICABLE))).toEqual([]);
  });

  for (const a of catalogue) {
    it(`${a.id}: ${a.name}`, async () => {
      let outcome: Outcome;
      try {
        outcome = await a.run(world);
      } catch (error) {
        outcome = { status: 0, succeeded: true, fiveXx: false, stackTrace: false, alive: true, note: `the attack threw: ${String(error)}` };
      }
      const health = await world.api().get('/healthz');
      outcome = { ...outcome, alive: health.status === 200 };
      outcomes.set(a.id, outcome);
      expect({ id: a.id, ...outcome }, `${a.id}: status ${outcome.status}; ${outcome.note}`).toMatchObject({ succeeded: false, fiveXx: false, stackTrace: false, alive: true });
    }, a.timeoutMs ?? 20_000);
  }

  it('every number in the summary except the count is zero', () => {
    const all = [...outcomes.values()];
    expect(all.length).toBe(catalogue.length);
    expect(all.filter((o) => o.succeeded || o.fiveXx || o.stackTrace || !o.alive).length).toBe(0);
  });
});
