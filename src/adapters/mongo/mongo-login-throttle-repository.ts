import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Collection, Db, Filter } from 'mongodb';
import type { LoginThrottleRepository } from '../../application/ports.js';
import { throttleBusy } from '../../domain/error-catalogue.js';
import type { ThrottleCounter, ThrottlePolicy } from '../../domain/login-throttle.js';
import { reserveAttempt } from '../../domain/login-throttle.js';
import { isDuplicateId, READ_LATEST_ON_PRIMARY } from './mongo-database.js';
import { QUERY_MAX_TIME_MS } from './mongo-transactions.js';

interface ThrottleDocument {
  _id: string;
  failures: number;
  windowStartedAt: Date;
  blockedUntil: Date | null;
  blocks: number;
  /**
   * A fresh random stamp per write; a write applies only over the stamp it read (compare-and-set).
   * Random rather than a counter, so a counter deleted by `reset` and created again is never taken
   * for the one read before (older documents hold a number, compared the same way).
   */
  version: string | number;
  /** When the server may forget the counter (TTL index `throttles_ttl`): see `throttleExpiresAt`. */
  expiresAt?: Date;
}

/** Rounds before a reservation gives up with `throttle_busy` (503). */
const MAX_ROUNDS = 40;
/** Longest random pause between two rounds, in ms; the pause grows with each lost round up to it. */
const MAX_BACKOFF_MS = 50;

/**
 * LoginThrottleRepository on MongoDB, shared by every instance. An attempt within an open window and a
 * release are single atomic updates; every other change (a new key, a new window, the attempt that
 * starts a block) is a single-document compare-and-set on `version`, retried after a short random
 * pause when another writer won the round. A key still contended after MAX_ROUNDS answers
 * `throttle_busy` (503) rather than count past its limit.
 */
export class MongoLoginThrottleRepository implements LoginThrottleRepository {
  private readonly throttles: Collection<ThrottleDocument>;

  constructor(db: Db) {
    this.throttles = db.collection<ThrottleDocument>('throttles');
  }

  async get(key: string): Promise<ThrottleCounter | null> {
    return toCounter(await this.throttles.findOne({ _id: String(key) }, { maxTimeMS: QUERY_MAX_TIME_MS }));
  }

  async reserve(key: string, now: Date, policy: ThrottlePolicy): Promise<number> {
    const id = String(key);
    for (let round = 0; round < MAX_ROUNDS; round++) {
      if (round > 0) await sleep(Math.random() * Math.min(MAX_BACKOFF_MS, 2 ** round));
      if (await this.countWithinWindow(id, now, policy)) return 0;
      // A round lost to an insert must see the winner: a local read on the primary does (a majority snapshot may not yet).
      const current = await this.throttles.findOne({ _id: id }, READ_LATEST_ON_PRIMARY);
      const { waitMs, next } = reserveAttempt(toCounter(current), id, now, policy);
      if (!next) return waitMs;
      if (await this.write(id, current?.version ?? null, next, policy)) return 0;
    }
    throw throttleBusy();
  }

  /** `afterRelease` as one atomic update: its conditions are the filter, so no round can be lost. */
  async release(key: string, now: Date, policy: ThrottlePolicy): Promise<void> {
    await this.throttles.updateOne(
      { _id: String(key), failures: { $gt: 0 }, ...openWithinWindow(now, policy) },
      { $inc: { failures: -1 }, $set: { version: randomUUID() } },
    );
  }

  async reset(key: string): Promise<void> {
    await this.throttles.deleteOne({ _id: String(key) });
  }

  /**
   * The common case of `reserveAttempt` as one atomic `$inc`: an open key within its window, below the
   * attempt that starts a block. False when the key is new, blocked, out of its window or at that
   * attempt; those go through compare-and-set, so a burst contends only there.
   */
  private async countWithinWindow(id: string, now: Date, policy: ThrottlePolicy): Promise<boolean> {
    const written = await this.throttles.updateOne(
      { _id: id, failures: { $lt: policy.maxFailures - 1 }, ...openWithinWindow(now, policy) },
      { $inc: { failures: 1 }, $set: { version: randomUUID() } },
    );
    return written.matchedCount === 1;
  }

  /** Writes over the stamp read (null: the document must not exist yet); false when another writer was first. */
  private async write(id: string, version: ThrottleDocument['version'] | null, next: ThrottleCounter, policy: ThrottlePolicy): Promise<boolean> {
    const fields = {
      failures: next.failures, windowStartedAt: next.windowStartedAt, blockedUntil: next.blockedUntil, blocks: next.blocks,
      expiresAt: throttleExpiresAt(next, policy),
    };
    if (version === null) {
      try {
        await this.throttles.insertOne({ _id: id, ...fields, version: randomUUID() });
        return true;
      } catch (error) {
        if (isDuplicateId(error, id)) return false; // another writer created this key's counter first
        throw error;
      }
    }
    const written = await this.throttles.updateOne({ _id: id, version }, { $set: { ...fields, version: randomUUID() } });
    return written.matchedCount === 1;
  }
}

/**
 * When a counter stops mattering: its window is over and so is the cool-down after its block (a block
 * escalates only while the previous one ended less than a window ago), whichever comes last.
 */
export function throttleExpiresAt(counter: ThrottleCounter, policy: ThrottlePolicy): Date {
  const lastEvent = Math.max(counter.windowStartedAt.getTime(), counter.blockedUntil?.getTime() ?? 0);
  return new Date(lastEvent + policy.windowMs);
}

/** The filter of a key that is not blocked at `now` and whose window has not passed. */
function openWithinWindow(now: Date, policy: ThrottlePolicy): Filter<ThrottleDocument> {
  return {
    windowStartedAt: { $gte: new Date(now.getTime() - policy.windowMs) },
    $or: [{ blockedUntil: null }, { blockedUntil: { $lte: now } }],
  };
}

function toCounter(d: ThrottleDocument | null): ThrottleCounter | null {
  if (!d) return null;
  return { key: d._id, failures: d.failures, windowStartedAt: d.windowStartedAt, blockedUntil: d.blockedUntil ?? null, blocks: d.blocks };
}
