import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MIGRATIONS, runMigrations } from '../../../src/adapters/sqlite/migrations.js';
import { loadSqliteDriver } from '../../../src/adapters/sqlite/sqlite-driver.js';
import { createSqliteStore } from '../../../src/adapters/sqlite/sqlite-store.js';
import { aShelf } from '../../support/builders.js';

const ADA = { id: 'u-ada', username: 'ada' };
const BOB = { id: 'u-bob', username: 'bob' };

/** Rows as a release before migration 3 stored them: the key was the trimmed, lower-cased name. */
const OLD_ROWS = [
  { id: 's1', owner: ADA, name: 'STRASSE', at: 1 },
  { id: 's2', owner: ADA, name: 'Stra\u00dfe', at: 2 },
  { id: 's3', owner: ADA, name: 'Cafe\u0301', at: 3 },
  { id: 's4', owner: BOB, name: 'Night\u200b Reading', at: 4 },
  { id: 's5', owner: ADA, name: 'Plain', at: 5 },
];

describe('SQLite migration 3: shelf name keys by NFC and full case folding', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'stacks-shelf-keys-'));
    // A database as the release before migration 3 left it (later migrations are not applied either).
    const Driver = loadSqliteDriver();
    const db = new Driver(join(dir, 'stacks.db'));
    runMigrations(db, MIGRATIONS.filter((m) => m.version < 3));
    const insert = db.prepare(`INSERT INTO shelves (id, name, name_key, description, is_public, owner_id, owner_username,
      created_at, updated_at) VALUES (?, ?, ?, NULL, 0, ?, ?, ?, ?)`);
    for (const row of OLD_ROWS) insert.run(row.id, row.name, row.name.trim().toLowerCase(), row.owner.id, row.owner.username, row.at, row.at);
    db.close();
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('recomputes every key at the next start and renames the later of two names that now collide', async () => {
    const store = createSqliteStore(dir);
    try {
      const rows = store.db.prepare('SELECT id, name, name_key AS key FROM shelves ORDER BY id').all();
      expect(rows).toEqual([
        { id: 's1', name: 'STRASSE', key: 'strasse' },
        { id: 's2', name: 'Stra\u00dfe (2)', key: 'strasse (2)' },
        { id: 's3', name: 'Cafe\u0301', key: 'caf\u00e9' },
        { id: 's4', name: 'Night\u200b Reading', key: 'night reading' },
        { id: 's5', name: 'Plain', key: 'plain' },
      ]);
      for (const [owner, name] of [[ADA, 'Strasse'], [ADA, 'CAF\u00c9'], [BOB, 'night reading']] as const) {
        await expect(store.shelves.create(aShelf({ owner, name })), name).rejects.toMatchObject({ code: 'shelf_name_taken' });
      }
      await store.shelves.create(aShelf({ owner: BOB, name: 'Strasse' }));
    } finally {
      await store.close();
    }
  });
});
