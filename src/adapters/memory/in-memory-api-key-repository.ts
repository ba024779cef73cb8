import type { ApiKeyRepository, Slice } from '../../application/ports.js';
import type { ApiKey } from '../../domain/api-key.js';
import { apiKeyExists } from '../../domain/error-catalogue.js';
import { offsetOf, type PageRequest } from '../../domain/page.js';
import { compareText, copy, MemoryDatabase } from './memory-database.js';

const newestFirst = (a: ApiKey, b: ApiKey): number => b.createdAt.getTime() - a.createdAt.getTime() || compareText(a.id, b.id);

/** ApiKeyRepository over process memory. */
export class InMemoryApiKeyRepository implements ApiKeyRepository {
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  async create(key: ApiKey): Promise<void> {
    for (const stored of this.db.apiKeys.values()) {
      if (stored.lookup === key.lookup || stored.id === key.id) throw apiKeyExists();
    }
    this.db.apiKeys.set(key.id, copy(key));
  }

  async findByLookup(lookup: string): Promise<ApiKey | null> {
    for (const key of this.db.apiKeys.values()) if (key.lookup === lookup) return copy(key);
    return null;
  }

  async listByOwner(ownerId: string, page: PageRequest): Promise<Slice<ApiKey>> {
    const owned = [...this.db.apiKeys.values()].filter((k) => k.ownerId === ownerId).sort(newestFirst);
    const start = offsetOf(page);
    return { items: owned.slice(start, start + page.pageSize).map(copy), total: owned.length };
  }

  async revoke(ownerId: string, id: string): Promise<boolean> {
    if (this.db.apiKeys.get(id)?.ownerId !== ownerId) return false;
    return this.db.apiKeys.delete(id);
  }

  async touchLastUsed(id: string, now: Date, minIntervalMs: number): Promise<boolean> {
    const key = this.db.apiKeys.get(id);
    if (!key || (key.lastUsedAt && now.getTime() - key.lastUsedAt.getTime() < minIntervalMs)) return false;
    this.db.apiKeys.set(id, { ...key, lastUsedAt: new Date(now.getTime()) });
    return true;
  }

  async deleteForUser(ownerId: string): Promise<number> {
    let deleted = 0;
    for (const [id, key] of this.db.apiKeys) {
      if (key.ownerId === ownerId && this.db.apiKeys.delete(id)) deleted++;
    }
    return deleted;
  }
}
