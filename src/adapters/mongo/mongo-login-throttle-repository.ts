import type { Collection, Db } from 'mongodb';
import type { ThrottleCounter, ThrottlePolicy } from '../../domain/login-throttle.js';
import { afterFailure } from '../../domain/login-throttle.js';
import type { LoginThrottleRepository } from '../../application/ports.js';
import { isDuplicateKey } from './mongo-database.js';

interface ThrottleDocument {
  _id: string;
  failures: number;
  windowStartedAt: Date;
  blockedUntil: Date | null;
  blocks: number;
  /** Bumped by every write; a write applies only over the version it read (compare-and-set). */
  version: number;
}

const MAX_ATTEMPTS = 200;

/**
 * LoginThrottleRepository on MongoDB, shared by every instance. Each failure is one single-document
 * compare-and-set on `version` (retried on a lost race), so no failure is lost without a transaction.
 */
export class MongoLoginThrottleRepository implements LoginThrottleRepository {
  private readonly throttles: Collection<ThrottleDocument>;

  constructor(db: Db) {
    this.throttles = db.collection<ThrottleDocument>('throttles');
  }

  async get(key: string): Promise<ThrottleCounter | null> {
    return toCounter(await this.throttles.findOne({ _id: String(key) }));
  }

  async recordFailure(key: string, now: Date, policy: ThrottlePolicy): Promise<ThrottleCounter> {
    const id = String(key);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const current = await this.throttles.findOne({ _id: id });
      const next = afterFailure(toCounter(current), id, now, policy);
      const fields = { failures: next.failures, windowStartedAt: next.windowStartedAt, blockedUntil: next.blockedUntil, blocks: next.blocks };
      if (!current) {
        try {
          await this.throttles.insertOne({ _id: id, ...fields, version: 1 });
          return next;
        } catch (error) {
          if (isDuplicateKey(error)) continue;
          throw error;
        }
      }
      const written = await this.throttles.updateOne({ _id: id, version: current.version }, { $set: { ...fields, version: current.version + 1 } });
      if (written.matchedCount === 1) return next;
    }
    throw new Error(`login throttle: could not record a failure for '${id}' after ${MAX_ATTEMPTS} attempts`);
  }

  async reset(key: string): Promise<void> {
    await this.throttles.deleteOne({ _id: String(key) });
  }
}

function toCounter(d: ThrottleDocument | null): ThrottleCounter | null {
  if (!d) return null;
  return { key: d._id, failures: d.failures, windowStartedAt: d.windowStartedAt, blockedUntil: d.blockedUntil ?? null, blocks: d.blocks };
}
