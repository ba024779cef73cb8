import type { TokenRevocationRepository } from '../../application/ports.js';
import { MemoryDatabase } from './memory-database.js';

/** TokenRevocationRepository over process memory. */
export class InMemoryTokenRevocationRepository implements TokenRevocationRepository {
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  async revoke(jti: string, expiresAt: Date): Promise<void> {
    const known = this.db.revocations.get(jti);
    if (known && known.getTime() >= expiresAt.getTime()) return;
    this.db.revocations.set(jti, new Date(expiresAt.getTime()));
  }

  async isRevoked(jti: string): Promise<boolean> {
    return this.db.revocations.has(jti);
  }

  async purgeExpired(now: Date): Promise<number> {
    let purged = 0;
    for (const [jti, expiresAt] of this.db.revocations) {
      if (expiresAt.getTime() <= now.getTime()) {
        this.db.revocations.delete(jti);
        purged++;
      }
    }
    return purged;
  }
}
