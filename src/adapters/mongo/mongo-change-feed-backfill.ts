import type { Db, Document } from 'mongodb';
import { memberChange, progressChange, shelfChange, type ChangeRecord } from '../../domain/change-feed.js';
import type { MongoChangeFeed } from './mongo-change-feed.js';

const BATCH = 500;

/**
 * Gives the shelves, shelf entries and reading states stored before the change feed existed their
 * entries (SQLite's migration 10 does this in SQL; books are BackfillChangeFeed's, on every store).
 * Walks each collection by `_id` a batch at a time and records only what has no entry: idempotent,
 * safe to cut short and run again.
 */
export async function backfillChangeFeed(db: Db, feed: MongoChangeFeed): Promise<{ shelves: number; members: number; progress: number }> {
  const shelves = await walk(db, feed, 'shelves', (d) => shelfChange(String(d._id), String(d['ownerId'])));
  const members = await walk(db, feed, 'shelf_books', (d) => memberChange(String(d['shelfId']), String(d['bookId'])));
  const progress = await walk(db, feed, 'progress', (d) => progressChange(String(d['userId']), String(d['bookId'])));
  return { shelves, members, progress };
}

async function walk(db: Db, feed: MongoChangeFeed, collection: string, change: (d: Document) => ChangeRecord): Promise<number> {
  let added = 0;
  let after: string | null = null;
  for (;;) {
    const filter: Document = after === null ? {} : { _id: { $gt: after } };
    const batch = await db.collection<{ _id: string }>(collection).find(filter).sort({ _id: 1 }).limit(BATCH).toArray();
    if (batch.length === 0) return added;
    const missing = await feed.untracked(batch.map(change));
    await feed.record(missing, new Date());
    added += missing.length;
    after = batch.at(-1)!._id;
  }
}
