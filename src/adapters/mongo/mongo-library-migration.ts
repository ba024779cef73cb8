import type { AnyBulkWriteOperation, Collection, Db } from 'mongodb';
import type { Book } from '../../domain/book.js';
import type { BookDocument } from './mongo-book-documents.js';
import { olderGrams, searchFields } from './mongo-book-documents.js';
import type { MemberDocument } from './mongo-shelf-members.js';

/** Documents read and written per round trip by the migration. */
export const MIGRATION_BATCH = 500;

/**
 * After listening, under the housekeeping lease: gives each book whose grams an older version wrote
 * (or that has none) the current grams, MIGRATION_BATCH at a time through one cursor (index:
 * books_search_grams_version). Resumable: the version mark is the progress mark, so a run cut short
 * leaves the rest to the next; a write that came in between already stored the current grams and
 * is left alone. Until none is left, book search answers what the older grams cannot from the
 * search text alone.
 */
export async function backfillSearchTokens(db: Db): Promise<number> {
  const books = db.collection<BookDocument>('books');
  const cursor = books.find(olderGrams(), { projection: { title: 1, authors: 1, tags: 1, series: 1 }, batchSize: MIGRATION_BATCH });
  let batch: AnyBulkWriteOperation<BookDocument>[] = [];
  let written = 0;
  for await (const book of cursor) {
    batch.push({ updateOne: { filter: { _id: book._id, ...olderGrams() },
      update: { $set: searchFields(book as Pick<Book, 'title' | 'authors' | 'tags' | 'series'>) } } });
    if (batch.length === MIGRATION_BATCH) {
      written += (await books.bulkWrite(batch, { ordered: false })).modifiedCount;
      batch = [];
    }
  }
  if (batch.length > 0) written += (await books.bulkWrite(batch, { ordered: false })).modifiedCount;
  return written;
}

/**
 * Renumbers, in (position, bookId) order, each shelf where two books share a position, so the unique
 * slot index can be built; returns how many shelves it renumbered. Run before each attempt at that
 * build: during a rolling upgrade an older instance may write a clashing position in between.
 */
export async function renumberClashingPositions(db: Db): Promise<number> {
  const members = db.collection<MemberDocument>('shelf_books');
  const clashing = members.aggregate<{ _id: string }>([
    { $group: { _id: { shelfId: '$shelfId', position: '$position' }, count: { $sum: 1 } } },
    { $match: { count: { $gt: 1 } } },
    { $group: { _id: '$_id.shelfId' } },
  ], { allowDiskUse: true, batchSize: MIGRATION_BATCH });
  let renumbered = 0;
  for await (const { _id: shelfId } of clashing) {
    let position = 0;
    let batch: AnyBulkWriteOperation<MemberDocument>[] = [];
    const inOrder = members.find({ shelfId }, { projection: { _id: 1 }, batchSize: MIGRATION_BATCH }).sort({ position: 1, bookId: 1 });
    for await (const member of inOrder) {
      batch.push({ updateOne: { filter: { _id: member._id }, update: { $set: { position: ++position } } } });
      if (batch.length === MIGRATION_BATCH) batch = await flush(members, batch);
    }
    await flush(members, batch);
    await db.collection<{ _id: string; nextPosition: number }>('shelves').updateOne({ _id: shelfId }, { $max: { nextPosition: position + 1 } });
    renumbered += 1;
  }
  return renumbered;
}

async function flush(members: Collection<MemberDocument>, batch: AnyBulkWriteOperation<MemberDocument>[]): Promise<AnyBulkWriteOperation<MemberDocument>[]> {
  if (batch.length > 0) await members.bulkWrite(batch, { ordered: false });
  return [];
}
