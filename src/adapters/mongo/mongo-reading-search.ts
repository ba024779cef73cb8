import type { Collection, Filter } from 'mongodb';
import type { Book, BookQuery } from '../../domain/book.js';
import { offsetOf } from '../../domain/page.js';
import type { Slice } from '../../application/ports.js';
import type { BookDocument } from './mongo-book-documents.js';
import { toBook } from './mongo-book-documents.js';
import type { ProgressDocument } from './mongo-progress-repository.js';
import { QUERY_MAX_TIME_MS } from './mongo-transactions.js';

const limited = { maxTimeMS: QUERY_MAX_TIME_MS };

type ReadRow = Pick<ProgressDocument, 'bookId' | 'status' | 'updatedAt'>;

/** The reader's records, newest first, read through index progress_user_recent {userId, updatedAt}. */
export async function readerProgress(progress: Collection<ProgressDocument>, reader: string | undefined): Promise<ReadRow[]> {
  if (reader === undefined) return [];
  return progress.find({ userId: String(reader) }, { projection: { _id: 0, bookId: 1, status: 1, updatedAt: 1 }, ...limited })
    .sort({ updatedAt: -1 }).toArray();
}

/** The `status` filter as an `_id` condition (a book without a record is unread); {} without one. */
export function statusFilter(query: BookQuery, rows: readonly ReadRow[]): Filter<BookDocument> {
  if (query.status === undefined) return {};
  if (query.status === 'unread') return { _id: { $nin: rows.filter((r) => r.status !== 'unread').map((r) => r.bookId) } };
  return { _id: { $in: rows.filter((r) => r.status === query.status).map((r) => r.bookId) } };
}

/**
 * The `read` sort: the reader's books with a record by its time (ties by id), then every other
 * matching book by id (books_* _id index), the page cut across both parts.
 */
export async function readOrderedPage(
  books: Collection<BookDocument>, query: BookQuery, filter: Filter<BookDocument>, rows: readonly ReadRow[],
): Promise<Slice<Book>> {
  const dir = query.sort.descending ? -1 : 1;
  const candidates = rows
    .filter((r) => query.status === undefined || r.status === query.status)
    .sort((a, b) => dir * (a.updatedAt.getTime() - b.updatedAt.getTime() || (a.bookId < b.bookId ? -1 : a.bookId > b.bookId ? 1 : 0)))
    .map((r) => r.bookId);
    // The reader's ids replace the status filter's `_id` condition: they are already narrowed to the status.
  const matching = new Set((await books.find({ ...filter, _id: { $in: candidates } }, { projection: { _id: 1 }, ...limited }).toArray())
    .map((d) => String(d._id)));
  const readIds = candidates.filter((id) => matching.has(id));
  const unreadRest = query.status === undefined || query.status === 'unread';
  const restFilter: Filter<BookDocument> = { ...filter, _id: { $nin: rows.map((r) => r.bookId) } };
  const offset = offsetOf(query);
  const headIds = readIds.slice(offset, offset + query.pageSize);
  const [head, restTotal] = await Promise.all([
    books.find({ _id: { $in: headIds } }, limited).toArray(),
    unreadRest ? books.countDocuments(restFilter, limited) : Promise.resolve(0),
  ]);
  const byId = new Map(head.map((d) => [String(d._id), d]));
  const items = headIds.flatMap((id) => (byId.has(id) ? [toBook(byId.get(id)!)] : []));
  const wanted = query.pageSize - items.length;
  if (unreadRest && wanted > 0) {
    const skip = Math.max(0, offset - readIds.length);
    const rest = await books.find(restFilter, limited).sort({ _id: dir }).skip(skip).limit(wanted).toArray();
    items.push(...rest.map(toBook));
  }
  return { items, total: readIds.length + restTotal };
}
