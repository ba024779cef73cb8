import type { Collection, Db } from 'mongodb';
import type { TokenRevocationRepository } from '../../application/ports.js';
import { READ_LATEST_ON_PRIMARY } from './mongo-database.js';

interface RevocationDocument {
  _id: string;
  expiresAt: Date;
}

/** TokenRevocationRepository on MongoDB; a TTL index on `expiresAt` also lets the server forget old entries. */
export class MongoTokenRevocationRepository implements TokenRevocationRepository {
  private readonly revocations: Collection<RevocationDocument>;

  constructor(db: Db) {
    this.revocations = db.collection<RevocationDocument>('revocations');
  }

  async revoke(jti: string, expiresAt: Date): Promise<void> {
    await this.revocations.updateOne({ _id: String(jti) }, { $max: { expiresAt: new Date(expiresAt.getTime()) } }, { upsert: true });
  }

  /** Reads on the primary with read concern local: a logout acknowledged just before a failover is seen on the new primary at once. */
  async isRevoked(jti: string): Promise<boolean> {
    return (await this.revocations.countDocuments({ _id: String(jti) }, { limit: 1, ...READ_LATEST_ON_PRIMARY })) > 0;
  }

  async purgeExpired(now: Date): Promise<number> {
    return (await this.revocations.deleteMany({ expiresAt: { $lte: new Date(now.getTime()) } })).deletedCount;
  }
}
