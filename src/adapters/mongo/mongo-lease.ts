import type { Collection, Db } from 'mongodb';
import type { HousekeepingLease } from '../../application/ports.js';
import { isDuplicateId } from './mongo-database.js';

interface LeaseDocument {
  _id: string;
  holder: string;
  expiresAt: Date;
}

/**
 * A named lease in the `leases` collection, held by one instance at a time until it expires: taking
 * it is one `findOneAndUpdate` (upsert) that matches only a free, expired or already-held lease, so
 * two instances racing for it both write the same `_id` and one loses on the duplicate key. Expiry
 * compares instance clocks: keep the lease several times longer than the skew between them.
 */
export class MongoLease implements HousekeepingLease {
  private readonly leases: Collection<LeaseDocument>;

  constructor(db: Db, private readonly name: string, private readonly holder: string, readonly ttlMs: number) {
    this.leases = db.collection<LeaseDocument>('leases');
  }

  /** Takes the lease (or extends it when already held here); false when another holder's lease has not expired. */
  async acquire(now: Date): Promise<boolean> {
    try {
      const taken = await this.leases.findOneAndUpdate(
        { _id: this.name, $or: [{ holder: this.holder }, { expiresAt: { $lte: now } }] },
        { $set: { holder: this.holder, expiresAt: new Date(now.getTime() + this.ttlMs) } },
        { upsert: true, returnDocument: 'after' },
      );
      return taken?.holder === this.holder;
    } catch (error) {
      if (isDuplicateId(error, this.name)) return false; // held by another instance: the filter missed, the upsert collided
      throw error;
    }
  }

  /** Pushes the expiry on while the work runs; false when the lease was lost (expired and taken by another). */
  async renew(now: Date): Promise<boolean> {
    const renewed = await this.leases.updateOne({ _id: this.name, holder: this.holder }, { $set: { expiresAt: new Date(now.getTime() + this.ttlMs) } });
    return renewed.matchedCount === 1;
  }

  /** Gives the lease up so the next instance need not wait for its expiry. */
  async release(): Promise<void> {
    await this.leases.deleteOne({ _id: this.name, holder: this.holder });
  }
}
