import type { KnownAddressRepository } from '../../application/ports.js';
import { compareText, MemoryDatabase, progressKey } from './memory-database.js';

/** KnownAddressRepository over process memory; an account that is gone keeps no address, as SQLite's foreign key does. */
export class InMemoryKnownAddressRepository implements KnownAddressRepository {
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  async remember(userId: string, address: string, at: Date): Promise<void> {
    if (!this.db.users.has(userId)) return;
    const key = progressKey(userId, address);
    const known = this.db.knownAddresses.get(key);
    if (known && known.lastSignInAt >= at.getTime()) return;
    this.db.knownAddresses.set(key, { userId, address, lastSignInAt: at.getTime() });
  }

  async lastSignIn(userId: string, address: string): Promise<Date | null> {
    const known = this.db.knownAddresses.get(progressKey(userId, address));
    return known ? new Date(known.lastSignInAt) : null;
  }

  async recent(userId: string, since: Date, limit: number): Promise<string[]> {
    return [...this.db.knownAddresses.values()]
      .filter((k) => k.userId === userId && k.lastSignInAt >= since.getTime())
      .sort((a, b) => b.lastSignInAt - a.lastSignInAt || compareText(a.address, b.address))
      .slice(0, limit)
      .map((k) => k.address);
  }

  async deleteForUser(userId: string): Promise<void> {
    for (const [key, known] of this.db.knownAddresses) if (known.userId === userId) this.db.knownAddresses.delete(key);
  }

  async purgeBefore(before: Date): Promise<number> {
    let purged = 0;
    for (const [key, known] of this.db.knownAddresses) {
      if (known.lastSignInAt < before.getTime() && this.db.knownAddresses.delete(key)) purged++;
    }
    return purged;
  }
}
