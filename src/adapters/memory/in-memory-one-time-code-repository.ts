import type { OneTimeCodeRepository } from '../../application/ports.js';
import { MemoryDatabase } from './memory-database.js';

/** OneTimeCodeRepository over process memory; `take` reads and deletes in one synchronous step. */
export class InMemoryOneTimeCodeRepository implements OneTimeCodeRepository {
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  async put(key: string, value: string, expiresAt: Date): Promise<void> {
    this.db.oneTimeCodes.set(key, { value, expiresAt: expiresAt.getTime() });
  }

  async take(key: string, now: Date): Promise<string | null> {
    const entry = this.db.oneTimeCodes.get(key);
    if (!entry) return null;
    this.db.oneTimeCodes.delete(key);
    return entry.expiresAt > now.getTime() ? entry.value : null;
  }

  async purgeExpired(now: Date): Promise<number> {
    let purged = 0;
    for (const [key, entry] of this.db.oneTimeCodes) {
      if (entry.expiresAt <= now.getTime()) {
        this.db.oneTimeCodes.delete(key);
        purged++;
      }
    }
    return purged;
  }
}
