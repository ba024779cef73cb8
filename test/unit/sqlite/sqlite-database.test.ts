import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Migration } from '../../../src/adapters/sqlite/migrations.js';
import { MIGRATIONS, runMigrations } from '../../../src/adapters/sqlite/migrations.js';
import { openSqliteDatabase } from '../../../src/adapters/sqlite/sqlite-database.js';
import { loadSqliteDriver } from '../../../src/adapters/sqlite/sqlite-driver.js';
import { createSqliteStore } from '../../../src/adapters/sqlite/sqlite-store.js';
import { aBook, aShelf, aUser, instant } from '../../support/builders.js';

const BetterSqlite3 = loadSqliteDriver();

describe('SQLite database file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'stacks-sqlite-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens with WAL, synchronous=FULL, foreign keys and a busy timeout', () => {
    const db = openSqliteDatabase(dir);
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('synchronous', { simple: true })).toBe(2);
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
      expect(db.name).toBe(join(dir, 'stacks.db'));
    } finally {
      db.close();
    }
  });

  it('keeps every kind of record across closing and reopening', async () => {
    const user = aUser();
    const book = aBook({ title: 'Persistent Title', authors: ['Kept Author'], tags: ['kept'] });
    const shelf = aShelf({ bookIds: [book.id] });
    const first = createSqliteStore(dir);
    await first.users.create(user);
    await first.books.create(book);
    await first.shelves.create(shelf);
    await first.revocations.revoke('jti', instant(100));
    await first.throttle.reserve('k', instant(0), { maxFailures: 5, windowMs: 1000, blockMs: 1000, maxBlockMs: 1000 });
    await first.close();

    const second = createSqliteStore(dir);
    try {
      expect(await second.users.findByUsername(user.username.toUpperCase())).toEqual(user);
      expect(await second.books.findById(book.id)).toEqual(book);
      const sort = { field: 'title' as const, descending: false };
      expect((await second.books.search({ q: 'persistent', author: 'kept author', tag: 'KEPT', sort, page: 1, pageSize: 5 })).total).toBe(1);
      expect(await second.shelves.findById(shelf.id)).toEqual(shelf);
      expect(await second.revocations.isRevoked('jti')).toBe(true);
      expect((await second.throttle.get('k'))?.failures).toBe(1);
    } finally {
      await second.close();
    }
  });

  it('records each migration once and does not run it again on reopening', () => {
    const db = openSqliteDatabase(dir);
    const applied = db.prepare('SELECT version, name, applied_at FROM schema_migrations ORDER BY version').all();
    db.close();
    expect(applied.map((row) => (row as { version: number }).version)).toEqual(MIGRATIONS.map((m) => m.version));
    const again = openSqliteDatabase(dir);
    try {
      expect(again.prepare('SELECT version, name, applied_at FROM schema_migrations ORDER BY version').all()).toEqual(applied);
      expect(runMigrations(again)).toEqual([]);
    } finally {
      again.close();
    }
  });

  it('applies only the migrations newer than the database, each in a transaction', () => {
    const db = new BetterSqlite3(':memory:');
    const one: Migration = { version: 1, name: 'one', sql: 'CREATE TABLE t (a INTEGER)' };
    const two: Migration = { version: 2, name: 'two', sql: 'ALTER TABLE t ADD COLUMN b INTEGER' };
    const broken: Migration = { version: 3, name: 'broken', sql: 'CREATE TABLE u (x); CREATE TABLE nonsense (' };
    expect(runMigrations(db, [one])).toEqual([1]);
    expect(runMigrations(db, [one, two])).toEqual([2]);
    expect(() => runMigrations(db, [one, two, broken])).toThrow();
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'u'").pluck().get()).toBe(0);
    expect(db.prepare('SELECT max(version) FROM schema_migrations').pluck().get()).toBe(2);
    expect(() => runMigrations(db, [one])).toThrow(/newer/);
    expect(() => runMigrations(db, [two])).toThrow(/version/);
    db.close();
  });

  it('allows a gap in the versions and fills it when the missing step arrives later (branches merged in any order)', () => {
    const db = new BetterSqlite3(':memory:');
    const one: Migration = { version: 1, name: 'one', sql: 'CREATE TABLE t (a INTEGER)' };
    const two: Migration = { version: 2, name: 'two', sql: 'CREATE TABLE u (b INTEGER)' };
    const three: Migration = { version: 3, name: 'three', sql: 'ALTER TABLE t ADD COLUMN c INTEGER' };
    expect(runMigrations(db, [one, three])).toEqual([1, 3]);
    expect(runMigrations(db, [one, two, three])).toEqual([2]);
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'u'").pluck().get()).toBe(1);
    expect(() => runMigrations(db, [one, three, two])).toThrow(/version/);
    db.close();
  });

  it('brings a database at main\'s schema 11 (released without 8) up to date: step 8 runs after 9-11, its table and column work', async () => {
    const db = new BetterSqlite3(join(dir, 'stacks.db'));
    // What stop 27 released: 1-7 and 9-11 (8 came later, and so did everything past 11).
    const released = MIGRATIONS.filter((m) => m.version !== 8 && m.version <= 11);
    expect(released.map((m) => m.version)).toEqual([1, 2, 3, 4, 5, 6, 7, 9, 10, 11]);
    runMigrations(db, released);
    db.prepare(`INSERT INTO users (id, username, username_key, email, email_key, password_hash, roles, auth_provider, oidc_issuer, oidc_subject,
      disabled, token_version, created_at, updated_at) VALUES ('u1', 'ada', 'ada', 'ada@example.test', 'ada@example.test', NULL, '["user"]', 'oidc',
      'https://idp.example', 'sub-1', 0, 0, 1000, 2000)`).run();
    expect(runMigrations(db)).toEqual([8, ...MIGRATIONS.filter((m) => m.version > 11).map((m) => m.version)]);
    expect(runMigrations(db)).toEqual([]);
    db.close();
    const store = createSqliteStore(dir);
    try {
      expect((await store.users.findById('u1'))?.oidc).toEqual({ issuer: 'https://idp.example', subject: 'sub-1', linkedAt: new Date(1000) });
      await store.knownAddresses.remember('u1', '203.0.113.9', new Date(5000));
      expect(await store.knownAddresses.lastSignIn('u1', '203.0.113.9')).toEqual(new Date(5000));
    } finally {
      await store.close();
    }
  });
});
