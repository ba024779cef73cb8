import type { Collection, Db } from 'mongodb';
import type { ApiKeyRepository, Slice } from '../../application/ports.js';
import type { ApiKey } from '../../domain/api-key.js';
import { apiKeyExists } from '../../domain/error-catalogue.js';
import { offsetOf, type PageRequest } from '../../domain/page.js';
import type { Permission } from '../../domain/permissions.js';
import { isDuplicateKey } from './mongo-database.js';
import { rerunOnce } from './mongo-errors.js';
import { QUERY_MAX_TIME_MS } from './mongo-transactions.js';

const limited = { maxTimeMS: QUERY_MAX_TIME_MS };

interface ApiKeyDocument {
  _id: string;
  ownerId: string;
  name: string;
  lookup: string;
  prefix: string;
  permissions: Permission[];
  ownerTokenVersion: number;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  createdAt: Date;
}

export const API_KEYS_COLLECTION = 'api_keys';

const keyOf = ({ _id, ...rest }: ApiKeyDocument): ApiKey => ({ id: _id, ...rest, permissions: [...rest.permissions] });

/** ApiKeyRepository on MongoDB (`api_keys`): a unique index on the lookup digest, one conditional update per touch. */
export class MongoApiKeyRepository implements ApiKeyRepository {
  private readonly keys: Collection<ApiKeyDocument>;

  constructor(db: Db) {
    this.keys = db.collection<ApiKeyDocument>(API_KEYS_COLLECTION);
  }

  async create(key: ApiKey): Promise<void> {
    const { id, ...rest } = key;
    try {
      await this.keys.insertOne({ _id: id, ...rest, permissions: [...rest.permissions] });
    } catch (error) {
      throw isDuplicateKey(error, '_id_', 'api_keys_lookup') ? apiKeyExists() : error;
    }
  }

  async findByLookup(lookup: string): Promise<ApiKey | null> {
    const found = await this.keys.findOne({ lookup: String(lookup) }, limited);
    return found ? keyOf(found) : null;
  }

  async listByOwner(ownerId: string, page: PageRequest): Promise<Slice<ApiKey>> {
    const filter = { ownerId: String(ownerId) };
    const [documents, total] = await Promise.all([
      this.keys.find(filter, limited).sort({ createdAt: -1, _id: 1 }).skip(offsetOf(page)).limit(page.pageSize).toArray(),
      this.keys.countDocuments(filter, limited),
    ]);
    return { items: documents.map(keyOf), total };
  }

  async revoke(ownerId: string, id: string): Promise<boolean> {
    return (await this.keys.deleteOne({ _id: String(id), ownerId: String(ownerId) })).deletedCount > 0;
  }

  async touchLastUsed(id: string, now: Date, minIntervalMs: number): Promise<boolean> {
    const staleBefore = new Date(now.getTime() - minIntervalMs);
    const result = await this.keys.updateOne(
      { _id: String(id), $or: [{ lastUsedAt: null }, { lastUsedAt: { $lte: staleBefore } }] },
      { $set: { lastUsedAt: new Date(now.getTime()) } },
    );
    return result.modifiedCount > 0;
  }

  /** By index api_keys_owner; run again once after a failover (idempotent, not a retryable write: a rerun counts what the first attempt left). */
  async deleteForUser(ownerId: string): Promise<number> {
    return (await rerunOnce(() => this.keys.deleteMany({ ownerId: String(ownerId) }))).deletedCount;
  }
}
