import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { as } from '../support/acting-as.js';
import { registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';

const SAME_NAMES: readonly (readonly [string, string])[] = [
  ['Caf\u00e9', 'Cafe\u0301'],
  ['Stra\u00dfe', 'STRASSE'],
  ['Night Reading', 'Night\u200b Reading'],
  ['Poems', '\ufeffpoems\u00ad'],
];

describe.each([
  ['memory', {}],
  ['sqlite', { DATABASE_URL: '' }],
])('shelf names of one owner over the %s store', (_name, env: Record<string, string>) => {
  let dir: string;
  let t: TestApp;
  let alice: Session;
  let bob: Session;
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stacks-shelf-names-'));
    t = await startTestApp({ DATA_DIR: dir, ...env });
    await registerUser(t.app, 'admin');
    alice = await registerUser(t.app, 'alice');
    bob = await registerUser(t.app, 'bob');
  });
  afterEach(async () => {
    await t.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('are one name after NFC, full case folding and without invisible characters: 409 shelf_name_taken', async () => {
    for (const [first, second] of SAME_NAMES) {
      expect((await as(t.app, alice).post('/api/shelves', { name: first })).status).toBe(201);
      const res = await as(t.app, alice).post('/api/shelves', { name: second });
      expect([res.status, res.body.code], JSON.stringify(second)).toEqual([409, 'shelf_name_taken']);
      expect((await as(t.app, bob).post('/api/shelves', { name: second })).status).toBe(201);
    }
  });

  it('keeps the name as typed, and refuses one that shows nothing', async () => {
    const created = await as(t.app, alice).post('/api/shelves', { name: ' Night\u200b Reading ' });
    expect(created.body.name).toBe('Night\u200b Reading');
    const res = await as(t.app, alice).post('/api/shelves', { name: '\u200b\u2060' });
    expect([res.status, res.body.code, res.body.errors]).toEqual([422, 'validation_failed', [expect.objectContaining({ field: 'name' })]]);
  });
});
