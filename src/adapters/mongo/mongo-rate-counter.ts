import type { Collection, Db } from 'mongodb';
import { isDuplicateId } from './mongo-database.js';

interface CounterDocument {
  _id: string;
  count: number;
  expiresAt: Date;
}

/**
 * Fixed-window hit counters in `rate_counters`, shared by every instance: one `$inc` with upsert per
 * hit, the window's end as a TTL (`rate_counters_ttl`) so the server forgets spent windows. Written with
 * w:1: a counter a failover rolls back loses a few hits of one window, which a budget tolerates, and a
 * request does not wait for replication.
 */
export class MongoRateCounter {
  private readonly counters: Collection<CounterDocument>;

  constructor(db: Db) {
    this.counters = db.collection<CounterDocument>('rate_counters');
  }

  /** Counts one hit of key in the fixed window of windowMs holding now; the hits so far in it and when it ends. */
  async hit(key: string, windowMs: number, now: Date): Promise<{ count: number; resetAt: Date }> {
    const start = Math.floor(now.getTime() / windowMs) * windowMs;
    const resetAt = new Date(start + windowMs);
    const id = `${windowMs}:${start}:${key}`;
    for (let attempt = 0; ; attempt++) {
      try {
        const counter = await this.counters.findOneAndUpdate(
          { _id: id },
          { $inc: { count: 1 }, $setOnInsert: { expiresAt: resetAt } },
          { upsert: true, returnDocument: 'after', writeConcern: { w: 1 } },
        );
        return { count: counter?.count ?? 1, resetAt };
      } catch (error) {
        // Two first hits upserting the same window at once: the loser's retry increments the winner's document.
        if (attempt > 0 || !isDuplicateId(error, id)) throw error;
      }
    }
  }
}
