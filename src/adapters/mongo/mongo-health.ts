import type { Db, Document } from 'mongodb';
import type { HealthCheck } from '../../application/ports.js';
import { storeUnavailable } from '../../domain/error-catalogue.js';
import { isDuplicateId } from './mongo-database.js';

/** How long one readiness answer is reused, so a load balancer probing often costs one write per this period. */
export const READINESS_CACHE_MS = 2_000;
/** How long the readiness write waits for a majority to acknowledge it (the writes of requests wait 10 s). */
export const READINESS_WRITE_TIMEOUT_MS = 2_000;

/** Whether a `hello` reply comes from the writable primary of a replica set (or a mongos, which routes to one). */
export function canTakeMajorityWrites(hello: Document): boolean {
  if (hello.msg === 'isdbgrid') return true;
  return hello.isWritablePrimary === true && typeof hello.setName === 'string';
}

/**
 * Ready when a majority write goes through: `hello` names this client's node the writable primary of
 * a replica set, and a write with write concern `majority` (wtimeout READINESS_WRITE_TIMEOUT_MS) to
 * the `readiness` document of `stacks_meta` is acknowledged. A primary whose secondaries are down but
 * which still holds its majority of voters (primary, secondary, arbiter with the secondary gone) stays
 * writable primary while every majority write waits out its wtimeout: only the write shows it. The
 * answer is reused for READINESS_CACHE_MS; concurrent probes share one check.
 */
export class MongoHealthCheck implements HealthCheck {
  private last: { at: number; ready: boolean } | null = null;
  private checking: Promise<boolean> | null = null;

  constructor(private readonly db: Db, private readonly now: () => number = () => performance.now()) {}

  async ping(): Promise<void> {
    if (!(await this.ready())) throw storeUnavailable();
  }

  private async ready(): Promise<boolean> {
    const at = this.now();
    if (this.last && at - this.last.at < READINESS_CACHE_MS) return this.last.ready;
    this.checking ??= this.check().finally(() => {
      this.checking = null;
    });
    const ready = await this.checking;
    this.last = { at, ready };
    return ready;
  }

  private async check(): Promise<boolean> {
    try {
      const hello = await this.db.command({ hello: 1 }, { readPreference: 'primary', signal: AbortSignal.timeout(READINESS_WRITE_TIMEOUT_MS) });
      if (!canTakeMajorityWrites(hello)) return false;
      await this.db.collection<{ _id: string; checkedAt: Date }>('stacks_meta').updateOne(
        { _id: 'readiness' }, { $set: { checkedAt: new Date() } },
        { upsert: true, writeConcern: { w: 'majority', wtimeoutMS: READINESS_WRITE_TIMEOUT_MS } },
      ).catch((error: unknown) => {
        if (!isDuplicateId(error, 'readiness')) throw error; // another instance's probe created the document at that moment
      });
      return true;
    } catch {
      return false;
    }
  }
}
