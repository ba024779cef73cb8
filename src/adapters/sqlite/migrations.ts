import type { Database } from 'better-sqlite3';
import { rekeyedShelfNames, type StoredShelfName } from '../../domain/shelf-rules.js';
import { BOOK_COUNTS, backfillGramCounts } from './sqlite-book-counts.js';
import { INITIAL_SCHEMA } from './sqlite-initial-schema.js';

/** One schema step; versions ascend and are never edited once released. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
  /** Work SQL cannot do, run after `sql` in the same transaction. */
  readonly run?: (db: Database) => void;
}

const ONE_TIME_CODES = `
CREATE TABLE one_time_codes (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER NOT NULL);
CREATE INDEX one_time_codes_expiry ON one_time_codes (expires_at);
`;

const READING_PROGRESS = `
CREATE TABLE reading_progress (
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  book_id TEXT NOT NULL REFERENCES books (id) ON DELETE CASCADE,
  status TEXT NOT NULL,
  percentage REAL NOT NULL,
  locator TEXT,
  device TEXT,
  device_id TEXT,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, book_id)
) WITHOUT ROWID;
CREATE INDEX reading_progress_recent ON reading_progress (user_id, updated_at);
CREATE INDEX reading_progress_book ON reading_progress (book_id);
`;

/**
 * Shelf name keys by the current rule (NFC, full case folding, no invisible characters); a shelf whose
 * name now collides with an older one of its owner's is renamed. Every changed row first takes a
 * placeholder key, so no row meets another's old key on the way.
 */
function rekeyShelfNames(db: Database): void {
  const shelves = db.prepare('SELECT id, owner_id AS ownerId, name, name_key AS nameKey FROM shelves ORDER BY created_at, id').all() as StoredShelfName[];
  const changes = rekeyedShelfNames(shelves);
  const placeholder = db.prepare("UPDATE shelves SET name_key = char(30) || id WHERE id = ?");
  const update = db.prepare('UPDATE shelves SET name = ?, name_key = ? WHERE id = ?');
  for (const id of changes.keys()) placeholder.run(id);
  for (const [id, { name, nameKey }] of changes) update.run(name, nameKey, id);
}

const API_KEYS = `
CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  owner_id TEXT NOT NULL,
  name TEXT NOT NULL,
  lookup TEXT NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  permissions TEXT NOT NULL,
  owner_token_version INTEGER NOT NULL,
  expires_at INTEGER,
  last_used_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE INDEX api_keys_owner ON api_keys (owner_id, created_at DESC, id);
`;

const BOOK_DIGESTS = `
CREATE TABLE book_digests (
  book_id TEXT PRIMARY KEY REFERENCES books (id) ON DELETE CASCADE,
  partial_md5 TEXT NOT NULL,
  file_name_md5 TEXT NOT NULL
);
CREATE INDEX book_digests_partial ON book_digests (partial_md5);
CREATE INDEX book_digests_file_name ON book_digests (file_name_md5);
`;

const SYNC_DOCUMENTS_BY_RECENCY = `
CREATE INDEX sync_documents_user_recency ON sync_documents (user_id, updated_at, document);
`;

const SYNC_DOCUMENTS = `
CREATE TABLE sync_documents (
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  document TEXT NOT NULL,
  progress TEXT NOT NULL,
  percentage REAL NOT NULL,
  device TEXT NOT NULL,
  device_id TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, document)
) WITHOUT ROWID;
`;

const KNOWN_ADDRESSES_AND_LINK_TIMES = `
CREATE TABLE known_addresses (
  user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  address TEXT NOT NULL,
  last_sign_in_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, address)
) WITHOUT ROWID;
CREATE INDEX known_addresses_last ON known_addresses (last_sign_in_at);
ALTER TABLE users ADD COLUMN oidc_linked_at INTEGER;
UPDATE users SET oidc_linked_at = CASE WHEN auth_provider = 'oidc' THEN created_at ELSE updated_at END WHERE oidc_issuer IS NOT NULL;
`;

/**
 * Kobo devices (their archived books cascade with them), and the change feed Kobo sync reads: one row
 * per entity, renumbered on every change (AUTOINCREMENT never reuses a number; writers take turns, so
 * numbers follow commit order). Every stored book, shelf, shelf entry and reading state starts in it.
 */
const KOBO_SYNC = `
CREATE TABLE kobo_devices (
  id TEXT PRIMARY KEY,
  owner_id TEXT NOT NULL,
  name TEXT NOT NULL,
  lookup TEXT NOT NULL UNIQUE,
  shelf_ids TEXT NOT NULL,
  owner_token_version INTEGER NOT NULL,
  last_used_at INTEGER,
  created_at INTEGER NOT NULL
);
CREATE INDEX kobo_devices_owner ON kobo_devices (owner_id, created_at DESC, id);

CREATE TABLE kobo_archived (
  device_id TEXT NOT NULL REFERENCES kobo_devices (id) ON DELETE CASCADE,
  book_id TEXT NOT NULL,
  PRIMARY KEY (device_id, book_id)
) WITHOUT ROWID;

CREATE TABLE change_feed (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  first_seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  entity_id TEXT NOT NULL,
  group_id TEXT NOT NULL,
  removed INTEGER NOT NULL,
  changed_at INTEGER NOT NULL,
  UNIQUE (kind, entity_id)
);
CREATE INDEX change_feed_group ON change_feed (kind, group_id, seq);
CREATE INDEX change_feed_removed ON change_feed (removed, changed_at) WHERE removed = 1;

INSERT INTO change_feed (first_seq, kind, entity_id, group_id, removed, changed_at)
  SELECT 0, 'book', id, '', 0, updated_at FROM books ORDER BY created_at, id;
INSERT INTO change_feed (first_seq, kind, entity_id, group_id, removed, changed_at)
  SELECT 0, 'shelf', id, owner_id, 0, updated_at FROM shelves ORDER BY created_at, id;
INSERT INTO change_feed (first_seq, kind, entity_id, group_id, removed, changed_at)
  SELECT 0, 'member', shelf_id || '/' || book_id, shelf_id, 0, 0 FROM shelf_books ORDER BY shelf_id, position;
INSERT INTO change_feed (first_seq, kind, entity_id, group_id, removed, changed_at)
  SELECT 0, 'progress', user_id || '/' || book_id, user_id, 0, updated_at FROM reading_progress ORDER BY updated_at;
UPDATE change_feed SET first_seq = seq;
`;

/** Request-budget counters that several server processes (WORKERS) share: one row per key and fixed window. */
const RATE_COUNTERS = `
CREATE TABLE rate_counters (
  key TEXT PRIMARY KEY,
  count INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX rate_counters_expiry ON rate_counters (expires_at);
`;

/**
 * The schema history, oldest first. Append new steps; never edit a released one. A step that rewrites
 * `books.search_text` in SQL must also recount the grams (see backfillGramCounts).
 */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: 'initial schema', sql: INITIAL_SCHEMA },
  { version: 2, name: 'one-time codes', sql: ONE_TIME_CODES },
  { version: 3, name: 'shelf name keys by NFC and full case folding', sql: '', run: rekeyShelfNames },
  { version: 4, name: 'reading progress', sql: READING_PROGRESS },
  { version: 5, name: 'personal API keys', sql: API_KEYS },
  { version: 6, name: 'KOReader document digests', sql: BOOK_DIGESTS },
  { version: 7, name: 'KOReader positions of unmatched documents', sql: SYNC_DOCUMENTS },
  { version: 8, name: 'known sign-in addresses; single sign-on link times', sql: KNOWN_ADDRESSES_AND_LINK_TIMES },
  { version: 9, name: 'KOReader positions by recency, for the per-user cap', sql: SYNC_DOCUMENTS_BY_RECENCY },
  { version: 10, name: 'Kobo devices and the change feed', sql: KOBO_SYNC },
  { version: 11, name: 'book counts by format, tag, author and short gram', sql: BOOK_COUNTS, run: backfillGramCounts },
  { version: 12, name: 'request-budget counters shared by worker processes', sql: RATE_COUNTERS },
];

/** Applies, each in its own transaction and in order, every migration the database has not recorded (a late gap is filled). Returns the versions applied. */
export function runMigrations(db: Database, migrations: readonly Migration[] = MIGRATIONS): number[] {
  assertOrdered(migrations);
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const current = (db.prepare('SELECT max(version) AS v FROM schema_migrations').get() as { v: number | null }).v ?? 0;
  const latest = migrations.at(-1)?.version ?? 0;
  if (current > latest) {
    throw new Error(`The database schema (version ${current}) is newer than this program knows (${latest}).`);
  }
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  const done = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?');
  const applied: number[] = [];
  for (const migration of migrations.filter((m) => !done.get(m.version))) {
    const ran = db.transaction(() => {
      if (done.get(migration.version)) return false; // another process got there first
      db.exec(migration.sql);
      migration.run?.(db);
      record.run(migration.version, migration.name, new Date().toISOString());
      return true;
    }).immediate();
    if (ran) applied.push(migration.version);
  }
  return applied;
}

/** Versions start at 1 and ascend; a gap is allowed (steps are numbered when planned and may be merged in any order). */
function assertOrdered(migrations: readonly Migration[]): void {
  migrations.forEach((m, i) => {
    const previous = i === 0 ? 0 : (migrations[i - 1] as Migration).version;
    const ordered = i === 0 ? m.version === 1 : m.version > previous;
    if (!ordered) throw new Error(`Migration '${m.name}' has version ${m.version}, after version ${previous}.`);
  });
}
