import type { KoboDeviceRepository, Slice } from '../../application/ports.js';
import { koboDeviceExists } from '../../domain/error-catalogue.js';
import type { KoboDevice } from '../../domain/kobo-device.js';
import { offsetOf, type PageRequest } from '../../domain/page.js';
import { compareText, copy, MemoryDatabase, progressKey } from './memory-database.js';

const newestFirst = (a: KoboDevice, b: KoboDevice): number => b.createdAt.getTime() - a.createdAt.getTime() || compareText(a.id, b.id);

/** KoboDeviceRepository over process memory. */
export class InMemoryKoboDeviceRepository implements KoboDeviceRepository {
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  async create(device: KoboDevice): Promise<void> {
    for (const stored of this.db.koboDevices.values()) {
      if (stored.lookup === device.lookup || stored.id === device.id) throw koboDeviceExists();
    }
    this.db.koboDevices.set(device.id, copy(device));
  }

  async findByLookup(lookup: string): Promise<KoboDevice | null> {
    for (const device of this.db.koboDevices.values()) if (device.lookup === lookup) return copy(device);
    return null;
  }

  async listByOwner(ownerId: string, page: PageRequest): Promise<Slice<KoboDevice>> {
    const owned = [...this.db.koboDevices.values()].filter((d) => d.ownerId === ownerId).sort(newestFirst);
    const start = offsetOf(page);
    return { items: owned.slice(start, start + page.pageSize).map(copy), total: owned.length };
  }

  async revoke(ownerId: string, id: string): Promise<boolean> {
    if (this.db.koboDevices.get(id)?.ownerId !== ownerId) return false;
    this.forgetArchived(id);
    return this.db.koboDevices.delete(id);
  }

  async touchLastUsed(id: string, now: Date, minIntervalMs: number): Promise<boolean> {
    const device = this.db.koboDevices.get(id);
    if (!device || (device.lastUsedAt && now.getTime() - device.lastUsedAt.getTime() < minIntervalMs)) return false;
    this.db.koboDevices.set(id, { ...device, lastUsedAt: new Date(now.getTime()) });
    return true;
  }

  async deleteForUser(ownerId: string): Promise<number> {
    let deleted = 0;
    for (const [id, device] of this.db.koboDevices) {
      if (device.ownerId !== ownerId) continue;
      this.forgetArchived(id);
      if (this.db.koboDevices.delete(id)) deleted++;
    }
    return deleted;
  }

  async archive(deviceId: string, bookId: string): Promise<void> {
    if (this.db.koboDevices.has(deviceId)) this.db.koboArchived.add(progressKey(deviceId, bookId));
  }

  async archivedAmong(deviceId: string, bookIds: readonly string[]): Promise<ReadonlySet<string>> {
    return new Set(bookIds.filter((bookId) => this.db.koboArchived.has(progressKey(deviceId, bookId))));
  }

  private forgetArchived(deviceId: string): void {
    const prefix = progressKey(deviceId, '');
    for (const key of this.db.koboArchived) if (key.startsWith(prefix)) this.db.koboArchived.delete(key);
  }
}
