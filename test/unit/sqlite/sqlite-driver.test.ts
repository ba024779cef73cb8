import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { LEGACY_DRIVER, NODE_API_DRIVER, loadSqliteDriver, sqliteDriverPackageFor } from '../../../src/adapters/sqlite/sqlite-driver.js';

const require = createRequire(import.meta.url);
const majorOf = (pkg: string) => Number.parseInt((require(`${pkg}/package.json`) as { version: string }).version, 10);
/** npm skips the optional 12.x alias on a Node outside its engines (26 and later). */
const installed = (pkg: string) => {
  try {
    return Boolean(require.resolve(`${pkg}/package.json`));
  } catch {
    return false;
  }
};

describe('choosing the SQLite driver by the Node-API version of the running Node', () => {
  it.each([
    { napi: '9', expected: LEGACY_DRIVER }, // Node 20.19 to 22.13
    { napi: '10', expected: NODE_API_DRIVER }, // Node 22.14 and later, 24, 26
    { napi: '11', expected: NODE_API_DRIVER },
    { napi: undefined, expected: LEGACY_DRIVER },
    { napi: 'x', expected: LEGACY_DRIVER },
  ])('Node-API $napi gets $expected', ({ napi, expected }) => {
    expect(sqliteDriverPackageFor(napi)).toBe(expected);
  });

  it('maps each choice to the better-sqlite3 line that is safe there: 13 (Node-API) or 12', () => {
    expect(majorOf(NODE_API_DRIVER)).toBe(13);
    if (installed(LEGACY_DRIVER) || sqliteDriverPackageFor(process.versions.napi) === LEGACY_DRIVER) {
      expect(majorOf(LEGACY_DRIVER)).toBe(12);
    }
  });
});

describe('the driver loaded on this Node', () => {
  it('is the one chosen for this Node-API version, and opens a database with FTS5 trigram search', () => {
    const Driver = loadSqliteDriver();
    const chosen = sqliteDriverPackageFor(process.versions.napi);
    expect(Driver).toBe(require(chosen));
    const db = new Driver(':memory:');
    try {
      db.exec("CREATE VIRTUAL TABLE t USING fts5 (text, tokenize = 'trigram')");
      db.prepare('INSERT INTO t (text) VALUES (?)').run('The Left Hand of Darkness');
      expect(db.prepare('SELECT text FROM t WHERE t MATCH ?').pluck().all('hand of')).toEqual(['The Left Hand of Darkness']);
    } finally {
      db.close();
    }
  });
});
