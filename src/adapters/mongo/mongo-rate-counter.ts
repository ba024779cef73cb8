import type { Collection, Db } from 'mongodb';
import type { RateCounter } from '../../application/ports.js';
import { isDuplicateId } from './mongo-database.js';

interface CounterDocument {
  _id: string;
  count: number;
  expiresAt: Date;
}

/**
 * Fixed-window counters in `rate_counters`, shared by every instance: one `$inc` with upsert per
 * batch of hits an instance reserves (SharedBudget), the window's end as a TTL (`rate_counters_ttl`)
 * so the server forgets spent windows. Written with w:1: a counter a failover rolls back loses a few
 * hits of one window, which a budget tolerates, and a reservation does not wait for replication.
 */
export class MongoRateCounter implements RateCounter {
  private readonly counters: Collection<CounterDocument>;

  constructor(db: Db) {
    this.counters = db.collection<CounterDocument>('rate_counters');
  }

  async add(key: string, hits: number, windowMs: number, now: Date): Promise<{ count: number; resetAt: Date }> {
    const start = Math.floor(now.getTime() / windowMs) * windowMs;
    const resetAt = new Date(start + windowMs);
    const id = `${windowMs}:${start}:${key}`;
    for (let attempt = 0; ; attempt++) {
      try {
        const counter = await this.counters.findOneAndUpdate(
          { _id: id },
          { $inc: { count: hits }, $setOnInsert: { expiresAt: resetAt } },
          { upsert: true, returnDocument: 'after', writeConcern: { w: 1 } },
        );
        return { count: counter?.count ?? hits, resetAt };
      } catch (error) {
        // Two first batches upserting the same window at once: the loser's retry increments the winner's document.
        if (attempt > 0 || !isDuplicateId(error, id)) throw error;
      }
    }
  }
}
