import type { Database } from 'better-sqlite3';
import type { KoboDeviceRepository, Slice } from '../../application/ports.js';
import { koboDeviceExists } from '../../domain/error-catalogue.js';
import type { KoboDevice } from '../../domain/kobo-device.js';
import { offsetOf, type PageRequest } from '../../domain/page.js';
import { fromMillis, isForeignKeyViolation, isUniqueViolation, toMillis } from './sqlite-database.js';

interface DeviceRow {
  id: string;
  owner_id: string;
  name: string;
  lookup: string;
  shelf_ids: string;
  owner_token_version: number;
  last_used_at: number | null;
  created_at: number;
}

const COLUMNS = 'id, owner_id, name, lookup, shelf_ids, owner_token_version, last_used_at, created_at';

function deviceOf(row: DeviceRow): KoboDevice {
  return {
    id: row.id, ownerId: row.owner_id, name: row.name, lookup: row.lookup, shelfIds: JSON.parse(row.shelf_ids) as string[],
    ownerTokenVersion: row.owner_token_version, lastUsedAt: row.last_used_at === null ? null : fromMillis(row.last_used_at),
    createdAt: fromMillis(row.created_at),
  };
}

/** KoboDeviceRepository on SQLite (migration 10): a unique index on the lookup digest; archived books cascade with the device. */
export class SqliteKoboDeviceRepository implements KoboDeviceRepository {
  private readonly statements: ReturnType<typeof prepare>;

  constructor(db: Database) {
    this.statements = prepare(db);
  }

  async create(device: KoboDevice): Promise<void> {
    try {
      this.statements.insert.run(device.id, device.ownerId, device.name, device.lookup, JSON.stringify(device.shelfIds), device.ownerTokenVersion,
        device.lastUsedAt ? toMillis(device.lastUsedAt) : null, toMillis(device.createdAt));
    } catch (error) {
      throw isUniqueViolation(error) ? koboDeviceExists() : error;
    }
  }

  async findByLookup(lookup: string): Promise<KoboDevice | null> {
    const row = this.statements.byLookup.get(lookup) as DeviceRow | undefined;
    return row ? deviceOf(row) : null;
  }

  async listByOwner(ownerId: string, page: PageRequest): Promise<Slice<KoboDevice>> {
    const rows = this.statements.page.all(ownerId, page.pageSize, offsetOf(page)) as DeviceRow[];
    return { items: rows.map(deviceOf), total: this.statements.countOwned.get(ownerId) as number };
  }

  async revoke(ownerId: string, id: string): Promise<boolean> {
    return this.statements.remove.run(id, ownerId).changes > 0;
  }

  async touchLastUsed(id: string, now: Date, minIntervalMs: number): Promise<boolean> {
    return this.statements.touch.run(toMillis(now), id, toMillis(now) - minIntervalMs).changes > 0;
  }

  async deleteForUser(ownerId: string): Promise<number> {
    return this.statements.removeOwned.run(ownerId).changes;
  }

  async archive(deviceId: string, bookId: string): Promise<void> {
    try {
      this.statements.archive.run(deviceId, bookId);
    } catch (error) {
      if (!isForeignKeyViolation(error)) throw error; // the device is gone: nothing to hide from
    }
  }

  async archivedAmong(deviceId: string, bookIds: readonly string[]): Promise<ReadonlySet<string>> {
    if (bookIds.length === 0) return new Set();
    return new Set(this.statements.archived.all(deviceId, JSON.stringify(bookIds)) as string[]);
  }
}

function prepare(db: Database) {
  return {
    insert: db.prepare(`INSERT INTO kobo_devices (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`),
    byLookup: db.prepare(`SELECT ${COLUMNS} FROM kobo_devices WHERE lookup = ?`),
    page: db.prepare(`SELECT ${COLUMNS} FROM kobo_devices WHERE owner_id = ? ORDER BY created_at DESC, id LIMIT ? OFFSET ?`),
    countOwned: db.prepare('SELECT count(*) FROM kobo_devices WHERE owner_id = ?').pluck(),
    remove: db.prepare('DELETE FROM kobo_devices WHERE id = ? AND owner_id = ?'),
    touch: db.prepare('UPDATE kobo_devices SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at <= ?)'),
    removeOwned: db.prepare('DELETE FROM kobo_devices WHERE owner_id = ?'),
    archive: db.prepare('INSERT OR IGNORE INTO kobo_archived (device_id, book_id) VALUES (?, ?)'),
    archived: db.prepare('SELECT book_id FROM kobo_archived WHERE device_id = ? AND book_id IN (SELECT value FROM json_each(?))').pluck(),
  };
}
