import type { Collection, Db, IndexDescription } from 'mongodb';
import type { KoboDeviceRepository, Slice } from '../../application/ports.js';
import { koboDeviceExists } from '../../domain/error-catalogue.js';
import type { KoboDevice } from '../../domain/kobo-device.js';
import { offsetOf, type PageRequest } from '../../domain/page.js';
import { duplicateKeyReport } from './mongo-transactions.js';

interface DeviceDocument {
  _id: string;
  ownerId: string;
  name: string;
  lookup: string;
  shelfIds: string[];
  ownerTokenVersion: number;
  lastUsedAt: Date | null;
  createdAt: Date;
}

/** A book hidden from one device: `_id` is `[deviceId, bookId]` as JSON. */
interface ArchivedDocument {
  _id: string;
  deviceId: string;
  bookId: string;
}

export const KOBO_DEVICE_INDEXES: IndexDescription[] = [
  { key: { lookup: 1 }, name: 'kobo_devices_lookup', unique: true },
  { key: { ownerId: 1, createdAt: -1, _id: 1 }, name: 'kobo_devices_owner' },
];
export const KOBO_ARCHIVED_INDEXES: IndexDescription[] = [{ key: { deviceId: 1, bookId: 1 }, name: 'kobo_archived_device' }];

const deviceOf = ({ _id, ...rest }: DeviceDocument): KoboDevice => ({ id: _id, ...rest, shelfIds: [...rest.shelfIds] });
const archivedId = (deviceId: string, bookId: string): string => JSON.stringify([String(deviceId), String(bookId)]);

/** KoboDeviceRepository on MongoDB (`kobo_devices`, `kobo_archived`). */
export class MongoKoboDeviceRepository implements KoboDeviceRepository {
  private readonly devices: Collection<DeviceDocument>;
  private readonly archived: Collection<ArchivedDocument>;

  constructor(db: Db) {
    this.devices = db.collection<DeviceDocument>('kobo_devices');
    this.archived = db.collection<ArchivedDocument>('kobo_archived');
  }

  async create(device: KoboDevice): Promise<void> {
    const { id, ...rest } = device;
    try {
      await this.devices.insertOne({ _id: id, ...rest, shelfIds: [...rest.shelfIds] });
    } catch (error) {
      throw duplicateKeyReport(error) ? koboDeviceExists() : error;
    }
  }

  async findByLookup(lookup: string): Promise<KoboDevice | null> {
    const found = await this.devices.findOne({ lookup: String(lookup) });
    return found ? deviceOf(found) : null;
  }

  async listByOwner(ownerId: string, page: PageRequest): Promise<Slice<KoboDevice>> {
    const filter = { ownerId: String(ownerId) };
    const [documents, total] = await Promise.all([
      this.devices.find(filter).sort({ createdAt: -1, _id: 1 }).skip(offsetOf(page)).limit(page.pageSize).toArray(),
      this.devices.countDocuments(filter),
    ]);
    return { items: documents.map(deviceOf), total };
  }

  async revoke(ownerId: string, id: string): Promise<boolean> {
    const deleted = (await this.devices.deleteOne({ _id: String(id), ownerId: String(ownerId) })).deletedCount > 0;
    if (deleted) await this.archived.deleteMany({ deviceId: String(id) });
    return deleted;
  }

  async touchLastUsed(id: string, now: Date, minIntervalMs: number): Promise<boolean> {
    const staleBefore = new Date(now.getTime() - minIntervalMs);
    const result = await this.devices.updateOne(
      { _id: String(id), $or: [{ lastUsedAt: null }, { lastUsedAt: { $lte: staleBefore } }] },
      { $set: { lastUsedAt: new Date(now.getTime()) } },
    );
    return result.modifiedCount > 0;
  }

  async deleteForUser(ownerId: string): Promise<number> {
    const ids = (await this.devices.find({ ownerId: String(ownerId) }, { projection: { _id: 1 } }).toArray()).map((d) => d._id);
    const deleted = (await this.devices.deleteMany({ ownerId: String(ownerId) })).deletedCount;
    if (ids.length > 0) await this.archived.deleteMany({ deviceId: { $in: ids } });
    return deleted;
  }

  async archive(deviceId: string, bookId: string): Promise<void> {
    const _id = archivedId(deviceId, bookId);
    await this.archived.updateOne({ _id }, { $setOnInsert: { deviceId: String(deviceId), bookId: String(bookId) } }, { upsert: true })
      .catch((error: unknown) => (duplicateKeyReport(error) ? undefined : Promise.reject(error)));
  }

  async archivedAmong(deviceId: string, bookIds: readonly string[]): Promise<ReadonlySet<string>> {
    if (bookIds.length === 0) return new Set();
    const found = await this.archived.find({ _id: { $in: bookIds.map((b) => archivedId(deviceId, b)) } }).toArray();
    return new Set(found.map((d) => d.bookId));
  }
}
