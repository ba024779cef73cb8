import type { Collection, Db, IndexDescription } from 'mongodb';
import type { ChangeFeedRepository, StaleProgressWindow } from '../../application/ports.js';
import { progressEntity, type Change, type ChangeKind, type ChangeRecord } from '../../domain/change-feed.js';
import { rerunOnce } from './mongo-errors.js';
import { inTransaction, QUERY_MAX_TIME_MS } from './mongo-transactions.js';

/** One entity's latest change: `_id` is `[kind, entityId]` as JSON. */
interface ChangeDocument {
  _id: string;
  seq: number;
  firstSeq: number;
  kind: ChangeKind;
  entityId: string;
  groupId: string;
  removed: boolean;
  changedAt: Date;
}

export const CHANGE_FEED_INDEXES: IndexDescription[] = [
  { key: { kind: 1, groupId: 1, seq: 1 }, name: 'change_feed_group' },
  { key: { kind: 1, removed: 1, entityId: 1 }, name: 'change_feed_present' },
  { key: { removed: 1, changedAt: 1 }, name: 'change_feed_removed' },
];

const COUNTER_ID = 'change_feed';
const changeId = (kind: ChangeKind, entityId: string): string => JSON.stringify([kind, String(entityId)]);
const changeOf = ({ _id: _ignored, ...rest }: ChangeDocument): Change => rest;
const BATCH = 500;
const limited = { maxTimeMS: QUERY_MAX_TIME_MS };

/**
 * ChangeFeedRepository on MongoDB (`change_feed`, its counter in `change_feed_counter`). Each record runs
 * in one transaction that first increments the counter: a second writer conflicts on the counter
 * document until the first commits, so numbers follow commit order, as a reader needs. Every read
 * carries maxTimeMS; the purge of old removals (a delete by filter) runs once more after a failover.
 */
export class MongoChangeFeed implements ChangeFeedRepository {
  private readonly changes: Collection<ChangeDocument>;
  private readonly counter: Collection<{ _id: string; seq: number }>;

  constructor(private readonly db: Db) {
    this.changes = db.collection<ChangeDocument>('change_feed');
    this.counter = db.collection<{ _id: string; seq: number }>('change_feed_counter');
  }

  async record(records: readonly ChangeRecord[], at: Date): Promise<void> {
    if (records.length === 0) return;
    await inTransaction(this.db, async (session) => {
      const bumped = await this.counter.findOneAndUpdate({ _id: COUNTER_ID }, { $inc: { seq: records.length } },
        { upsert: true, returnDocument: 'after', session });
      let seq = (bumped?.seq ?? records.length) - records.length;
      for (const c of records) {
        seq += 1;
        const _id = changeId(c.kind, c.entityId);
        const previous = await this.changes.findOne({ _id }, { session, ...limited });
        const firstSeq = previous && !previous.removed ? previous.firstSeq : seq;
        await this.changes.replaceOne({ _id }, {
          seq, firstSeq, kind: c.kind, entityId: String(c.entityId), groupId: String(c.groupId), removed: c.removed,
          changedAt: new Date(at.getTime()),
        }, { upsert: true, session });
      }
    });
  }

  async since(kind: ChangeKind, groups: readonly string[], after: number, limit: number): Promise<Change[]> {
    const found = await this.changes.find({ kind, groupId: { $in: groups.map(String) }, seq: { $gt: after } }, limited)
      .sort({ seq: 1 }).limit(limit).toArray();
    return found.map(changeOf);
  }

  async head(): Promise<number> {
    return (await this.counter.findOne({ _id: COUNTER_ID }, limited))?.seq ?? 0;
  }

  async untrackedBooks(afterId: string | null, limit: number): Promise<string[]> {
    const books = this.db.collection<{ _id: string }>('books');
    const untracked: string[] = [];
    let cursor = afterId ?? '';
    while (untracked.length < limit) {
      const ids = (await books.find({ _id: { $gt: cursor } }, { projection: { _id: 1 }, ...limited }).sort({ _id: 1 }).limit(BATCH).toArray()).map((b) => b._id);
      if (ids.length === 0) break;
      const tracked = new Set((await this.changes.find({ _id: { $in: ids.map((id) => changeId('book', id)) } }, { projection: { entityId: 1 }, ...limited })
        .toArray()).map((c) => c.entityId));
      untracked.push(...ids.filter((id) => !tracked.has(id)));
      cursor = ids.at(-1)!;
    }
    return untracked.slice(0, limit);
  }

  /** Those of these changes whose entity has no entry yet (the backfill's filter). */
  async untracked(changes: readonly ChangeRecord[]): Promise<ChangeRecord[]> {
    const ids = changes.map((c) => changeId(c.kind, c.entityId));
    const found = new Set((await this.changes.find({ _id: { $in: ids } }, { projection: { _id: 1 }, ...limited }).toArray()).map((d) => d._id));
    return changes.filter((_, i) => !found.has(ids[i]!));
  }

  async presentBooks(afterId: string | null, limit: number): Promise<string[]> {
    const found = await this.changes.find({ kind: 'book', removed: false, entityId: { $gt: afterId ?? '' } }, { projection: { entityId: 1 }, ...limited })
      .sort({ entityId: 1 }).limit(limit).toArray();
    return found.map((c) => c.entityId);
  }

  async staleProgress(after: string | null, limit: number): Promise<StaleProgressWindow> {
    const progress = this.db.collection<{ _id: string; userId: string; bookId: string; updatedAt: Date }>('progress');
    const window = await progress.find(after === null ? {} : { _id: { $gt: after } }, { projection: { userId: 1, bookId: 1, updatedAt: 1 }, ...limited })
      .sort({ _id: 1 }).limit(limit).toArray();
    const ids = window.map((p) => changeId('progress', progressEntity(p.userId, p.bookId)));
    const entries = new Map((await this.changes.find({ _id: { $in: ids } }, { projection: { removed: 1, changedAt: 1 }, ...limited }).toArray())
      .map((c) => [c._id, c]));
    const stale = window.filter((p, i) => {
      const entry = entries.get(ids[i]!);
      return !entry || entry.removed || entry.changedAt.getTime() < p.updatedAt.getTime();
    });
    return { stale: stale.map((p) => ({ userId: p.userId, bookId: p.bookId })), next: window.at(-1)?._id ?? null };
  }

  async purgeRemovedBefore(before: Date): Promise<number> {
    return (await rerunOnce(() => this.changes.deleteMany({ removed: true, changedAt: { $lt: before } }))).deletedCount;
  }
}
