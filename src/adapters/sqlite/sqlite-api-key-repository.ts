import type { Database, Statement } from 'better-sqlite3';
import type { ApiKeyRepository, Slice } from '../../application/ports.js';
import type { ApiKey } from '../../domain/api-key.js';
import { apiKeyExists } from '../../domain/error-catalogue.js';
import { offsetOf, type PageRequest } from '../../domain/page.js';
import type { Permission } from '../../domain/permissions.js';
import { fromMillis, isUniqueViolation, toMillis } from './sqlite-database.js';

interface ApiKeyRow {
  id: string;
  owner_id: string;
  name: string;
  lookup: string;
  prefix: string;
  permissions: string;
  owner_token_version: number;
  expires_at: number | null;
  last_used_at: number | null;
  created_at: number;
}

const COLUMNS = 'id, owner_id, name, lookup, prefix, permissions, owner_token_version, expires_at, last_used_at, created_at';
const orNull = (millis: number | null): Date | null => (millis === null ? null : fromMillis(millis));

function keyOf(row: ApiKeyRow): ApiKey {
  return {
    id: row.id, ownerId: row.owner_id, name: row.name, lookup: row.lookup, prefix: row.prefix,
    permissions: JSON.parse(row.permissions) as Permission[], ownerTokenVersion: row.owner_token_version,
    expiresAt: orNull(row.expires_at), lastUsedAt: orNull(row.last_used_at), createdAt: fromMillis(row.created_at),
  };
}

/** ApiKeyRepository on SQLite: a unique index on the lookup digest, one conditional UPDATE per touch. */
export class SqliteApiKeyRepository implements ApiKeyRepository {
  private readonly insert: Statement;
  private readonly byLookup: Statement;
  private readonly page: Statement;
  private readonly countOwned: Statement;
  private readonly remove: Statement;
  private readonly touch: Statement;
  private readonly removeOwned: Statement;

  constructor(db: Database) {
    this.insert = db.prepare(`INSERT INTO api_keys (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    this.byLookup = db.prepare(`SELECT ${COLUMNS} FROM api_keys WHERE lookup = ?`);
    this.page = db.prepare(`SELECT ${COLUMNS} FROM api_keys WHERE owner_id = ? ORDER BY created_at DESC, id LIMIT ? OFFSET ?`);
    this.countOwned = db.prepare('SELECT count(*) FROM api_keys WHERE owner_id = ?').pluck();
    this.remove = db.prepare('DELETE FROM api_keys WHERE id = ? AND owner_id = ?');
    this.touch = db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)');
    this.removeOwned = db.prepare('DELETE FROM api_keys WHERE owner_id = ?');
  }

  async create(key: ApiKey): Promise<void> {
    try {
      this.insert.run(key.id, key.ownerId, key.name, key.lookup, key.prefix, JSON.stringify(key.permissions), key.ownerTokenVersion,
        key.expiresAt ? toMillis(key.expiresAt) : null, key.lastUsedAt ? toMillis(key.lastUsedAt) : null, toMillis(key.createdAt));
    } catch (error) {
      throw isUniqueViolation(error) ? apiKeyExists() : error;
    }
  }

  async findByLookup(lookup: string): Promise<ApiKey | null> {
    const row = this.byLookup.get(lookup) as ApiKeyRow | undefined;
    return row ? keyOf(row) : null;
  }

  async listByOwner(ownerId: string, page: PageRequest): Promise<Slice<ApiKey>> {
    const rows = this.page.all(ownerId, page.pageSize, offsetOf(page)) as ApiKeyRow[];
    return { items: rows.map(keyOf), total: this.countOwned.get(ownerId) as number };
  }

  async revoke(ownerId: string, id: string): Promise<boolean> {
    return this.remove.run(id, ownerId).changes > 0;
  }

  async touchLastUsed(id: string, now: Date, minIntervalMs: number): Promise<boolean> {
    return this.touch.run(toMillis(now), id, toMillis(now) - minIntervalMs).changes > 0;
  }

  async deleteForUser(ownerId: string): Promise<number> {
    return this.removeOwned.run(ownerId).changes;
  }
}
