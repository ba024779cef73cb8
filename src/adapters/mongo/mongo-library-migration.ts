import type { AnyBulkWriteOperation, Collection, Db } from 'mongodb';
import { MongoServerError } from 'mongodb';
import type { Book } from '../../domain/book.js';
import type { BookDocument } from './mongo-book-documents.js';
import { olderGrams, searchFields } from './mongo-book-documents.js';
import { LIBRARY_INDEXES, SUPERSEDED_INDEXES } from './mongo-library-indexes.js';
import type { MemberDocument } from './mongo-shelf-members.js';
import { MEMBER_ORDER } from './mongo-shelf-members.js';

/** Documents read and written per round trip by the migration. */
export const MIGRATION_BATCH = 500;

/**
 * Before listening: brings the library's indexes to the current layout (renumbering clashing shelf
 * positions first, once, so the unique slot index can be built). Idempotent; on every start but the
 * first after an upgrade each step finds nothing to do. Memory stays bounded by MIGRATION_BATCH.
 */
export async function migrateLibraryIndexes(db: Db): Promise<void> {
  if (await hasIndex(db, 'shelf_books', 'shelf_books_position')) await renumberClashingPositions(db);
  for (const [collection, names] of Object.entries(SUPERSEDED_INDEXES)) {
    for (const name of names) await db.collection(collection).dropIndex(name).catch(ignoreMissingIndex);
  }
  for (const [collection, indexes] of Object.entries(LIBRARY_INDEXES)) await db.collection(collection).createIndexes(indexes);
}

/** The whole migration at once (the indexes, then the search grams), as housekeeping and tests run it. */
export async function migrateLibrary(db: Db): Promise<void> {
  await migrateLibraryIndexes(db);
  await backfillSearchTokens(db);
}

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

/** Renumbers, in (position, bookId) order, each shelf where two books share a position, so the unique slot index can be built. */
async function renumberClashingPositions(db: Db): Promise<void> {
  const members = db.collection<MemberDocument>('shelf_books');
  const clashing = members.aggregate<{ _id: string }>([
    { $group: { _id: { shelfId: '$shelfId', position: '$position' }, count: { $sum: 1 } } },
    { $match: { count: { $gt: 1 } } },
    { $group: { _id: '$_id.shelfId' } },
  ], { allowDiskUse: true, batchSize: MIGRATION_BATCH });
  for await (const { _id: shelfId } of clashing) {
    let position = 0;
    let batch: AnyBulkWriteOperation<MemberDocument>[] = [];
    for await (const member of members.find({ shelfId }, { projection: { _id: 1 }, batchSize: MIGRATION_BATCH }).sort(MEMBER_ORDER)) {
      batch.push({ updateOne: { filter: { _id: member._id }, update: { $set: { position: ++position } } } });
      if (batch.length === MIGRATION_BATCH) batch = await flush(members, batch);
    }
    await flush(members, batch);
    await db.collection<{ _id: string; nextPosition: number }>('shelves').updateOne({ _id: shelfId }, { $max: { nextPosition: position + 1 } });
  }
}

async function flush(members: Collection<MemberDocument>, batch: AnyBulkWriteOperation<MemberDocument>[]): Promise<AnyBulkWriteOperation<MemberDocument>[]> {
  if (batch.length > 0) await members.bulkWrite(batch, { ordered: false });
  return [];
}

async function hasIndex(db: Db, collection: string, name: string): Promise<boolean> {
  const indexes = await db.collection(collection).listIndexes().toArray().catch(() => []);
  return indexes.some((index) => index.name === name);
}

/** Another instance may have dropped it first, or it never existed. */
function ignoreMissingIndex(error: unknown): void {
  if (error instanceof MongoServerError && (error.code === 27 || error.codeName === 'IndexNotFound' || error.code === 26)) return;
  throw error;
}
