import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { runMigrations } from './migrations.js';
import { loadSqliteDriver } from './sqlite-driver.js';

export const IN_MEMORY = ':memory:';

/**
 * Opens `<dataDir>/stacks.db` (or a private in-memory database for `:memory:`), makes acknowledged
 * writes durable (WAL + synchronous=FULL), enforces foreign keys, and brings the schema up to date.
 * Migrations commit with synchronous=NORMAL: in WAL mode a step lost to a power cut is lost whole with
 * its record in schema_migrations and runs again at the next start, and the first durable write after
 * them makes them durable too (the WAL is synced in order). That spares a fresh database eight fsyncs
 * at start-up (about 70 ms here).
 */
export function openSqliteDatabase(dataDir: string): Database {
  let file = IN_MEMORY;
  if (dataDir !== IN_MEMORY) {
    mkdirSync(dataDir, { recursive: true });
    file = join(dataDir, 'stacks.db');
  }
  const Driver = loadSqliteDriver();
  const db = new Driver(file);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    runMigrations(db);
    db.pragma('synchronous = FULL');
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * A second connection to the same database for counters (login throttling) with synchronous=NORMAL:
 * in WAL mode a commit then survives a crash of the process but not of the machine, and costs no
 * fsync. A burst of 150 refused logins otherwise made 300 fsyncs on the event loop. The in-memory
 * database cannot be shared, so there the one connection serves.
 */
export function openSqliteCounterConnection(main: Database, dataDir: string): Database {
  if (dataDir === IN_MEMORY) return main;
  const Driver = loadSqliteDriver();
  const db = new Driver(join(dataDir, 'stacks.db'));
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  return db;
}

/** Whether an error is SQLite rejecting a row for breaking a UNIQUE constraint (the message names the columns). */
export function isUniqueViolation(error: unknown): error is Error {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_UNIQUE';
}

export function isForeignKeyViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/** Dates are stored as epoch milliseconds. */
export const toMillis = (date: Date): number => date.getTime();
export const fromMillis = (millis: number): Date => new Date(millis);
