import type { Collection, Filter, Sort } from 'mongodb';
import type { Book, BookQuery } from '../../domain/book.js';
import { offsetOf } from '../../domain/page.js';
import type { ReadingStatus } from '../../domain/reading-progress.js';
import type { Slice } from '../../application/ports.js';
import type { BookDocument } from './mongo-book-documents.js';
import { toBook } from './mongo-book-documents.js';
import type { ProgressDocument } from './mongo-progress-repository.js';
import { compareBySort } from './mongo-sort-order.js';
import { QUERY_MAX_TIME_MS } from './mongo-transactions.js';

const limited = { maxTimeMS: QUERY_MAX_TIME_MS };
type SortKeys = Record<string, 1 | -1>;

/** Records read and book ids sent in one `$in`, per round trip: what the reading filters hold in memory at once. */
export const READING_BATCH = 500;

/** The books, the reader's progress records, and how many ids one round trip sends. */
export interface ReadingSources {
  readonly books: Collection<BookDocument>;
  readonly progress: Collection<ProgressDocument>;
  readonly batch: number;
}

const progressIdOf = (userId: string, bookId: string): string => JSON.stringify([userId, bookId]);

/**
 * The book ids of the reader's records of these statuses (all when none given), READING_BATCH at a
 * time, in `order`: by book (index progress_user_status) or by time, ties by book (progress_user_recent_book).
 */
async function* recordBatches(s: ReadingSources, reader: string, statuses: readonly ReadingStatus[] | null, order: 'book' | 1 | -1): AsyncIterable<string[]> {
  const filter: Filter<ProgressDocument> = { userId: reader, ...(statuses ? { status: statuses.length === 1 ? statuses[0] : { $in: [...statuses] } } : {}) };
  const sort: Sort = order === 'book' ? { bookId: 1 } : { updatedAt: order, bookId: order };
  const cursor = s.progress.find(filter, { projection: { _id: 0, bookId: 1 }, batchSize: s.batch, ...limited }).sort(sort);
  let batch: string[] = [];
  for await (const { bookId } of cursor) {
    batch.push(bookId);
    if (batch.length === s.batch) yield batch.splice(0);
  }
  if (batch.length > 0) yield batch;
}

/** Of these book ids, those whose book matches the filter (index: _id_). */
async function matching(s: ReadingSources, filter: Filter<BookDocument>, ids: readonly string[]): Promise<Set<string>> {
  const found = await s.books.find({ ...filter, _id: { $in: [...ids] } }, { projection: { _id: 1 }, ...limited }).toArray();
  return new Set(found.map((d) => String(d._id)));
}

/** How many of the reader's records of these statuses are of a book matching the filter, one batch at a time. */
async function countRecorded(s: ReadingSources, reader: string, statuses: readonly ReadingStatus[] | null, filter: Filter<BookDocument>): Promise<number> {
  let count = 0;
  for await (const ids of recordBatches(s, reader, statuses, 'book')) count += await s.books.countDocuments({ ...filter, _id: { $in: ids } }, limited);
  return count;
}

/**
 * `count` books matching the filter in `sort` order after skipping `skip` of them, leaving out each
 * book the reader has a record of (of `excluded` statuses, or any): the books are walked in the sort's
 * index and each chunk's records looked up by `_id` (index: _id_ of progress).
 */
async function booksWithoutRecord(
  s: ReadingSources, reader: string, filter: Filter<BookDocument>, sort: Sort, excluded: readonly ReadingStatus[] | null, skip: number, count: number,
): Promise<BookDocument[]> {
  const page: BookDocument[] = [];
  if (count <= 0) return page;
  let skipped = 0;
  const cursor = s.books.find(filter, { batchSize: s.batch, ...limited }).sort(sort);
  let chunk: BookDocument[] = [];
  const take = async (): Promise<boolean> => {
    const ids = chunk.map((d) => progressIdOf(reader, String(d._id)));
    const recordFilter: Filter<ProgressDocument> = { _id: { $in: ids }, ...(excluded ? { status: { $in: [...excluded] } } : {}) };
    const recorded = new Set((await s.progress.find(recordFilter, { projection: { _id: 0, bookId: 1 }, ...limited }).toArray()).map((r) => r.bookId));
    for (const d of chunk) {
      if (recorded.has(String(d._id))) continue;
      if (skipped < skip) skipped += 1;
      else if (page.push(d) === count) return true;
    }
    chunk = [];
    return false;
  };
  for await (const d of cursor) {
    chunk.push(d);
    if (chunk.length === s.batch && (await take())) return page;
  }
  if (chunk.length > 0) await take();
  return page;
}

/** The page of `status=reading|finished`: the reader's books of that status that match, in the search's order. */
async function recordedPage(s: ReadingSources, query: BookQuery, reader: string, status: ReadingStatus, filter: Filter<BookDocument>, sort: SortKeys): Promise<Slice<Book>> {
  const offset = offsetOf(query);
  const keep = offset + query.pageSize;
  let total = 0;
  let best: BookDocument[] = [];
  // Each batch's first `keep` in order, merged: the page is the same slice of the whole order, in memory `keep` + one batch.
  for await (const ids of recordBatches(s, reader, [status], 'book')) {
    const batchFilter = { ...filter, _id: { $in: ids } };
    const [top, count] = await Promise.all([
      s.books.find(batchFilter, limited).sort(sort).limit(keep).toArray(), s.books.countDocuments(batchFilter, limited)]);
    total += count;
    best = [...best, ...top].sort((a, b) => compareBySort(a, b, sort)).slice(0, keep);
  }
  return { items: best.slice(offset).map(toBook), total };
}

/** The page of `status=unread`: matching books without a reading or finished record, walked in the search's order. */
async function unreadPage(s: ReadingSources, query: BookQuery, reader: string, filter: Filter<BookDocument>, sort: SortKeys, total: number): Promise<Slice<Book>> {
  const started = ['reading', 'finished'] as const;
  const unread = total - (await countRecorded(s, reader, started, filter));
  const offset = offsetOf(query);
  if (offset >= unread) return { items: [], total: unread };
  const fromEnd = unread - offset - query.pageSize;
  if (offset <= fromEnd) return { items: (await booksWithoutRecord(s, reader, filter, sort, started, offset, query.pageSize)).map(toBook), total: unread };
  // Nearer the end: walk the order backwards, as a deep page of a plain search does.
  const reversed = Object.fromEntries(Object.entries(sort).map(([k, d]) => [k, -d])) as SortKeys;
  const tail = await booksWithoutRecord(s, reader, filter, reversed, started, Math.max(0, fromEnd), query.pageSize + Math.min(0, fromEnd));
  return { items: tail.reverse().map(toBook), total: unread };
}

/**
 * The `read` order: the reader's books with a record (of the status asked, or any) by the record's time,
 * ties by book, walked in the records' index one batch at a time; then every other matching book
 * without any record, by id; the page cut across both parts. Nothing holds more than one batch of ids.
 */
async function readOrderPage(s: ReadingSources, query: BookQuery, reader: string, filter: Filter<BookDocument>, total: () => Promise<number>): Promise<Slice<Book>> {
  const dir = query.sort.descending ? -1 : 1;
  const statuses = query.status ? [query.status] : null;
  const offset = offsetOf(query);
  const headIds: string[] = [];
  let recorded = 0;
  for await (const ids of recordBatches(s, reader, statuses, dir)) {
    const matches = await matching(s, filter, ids);
    for (const id of ids.filter((i) => matches.has(i))) {
      if (recorded >= offset && headIds.length < query.pageSize) headIds.push(id);
      recorded += 1;
    }
  }
  const head = headIds.length === 0 ? [] : await s.books.find({ _id: { $in: headIds } }, limited).toArray();
  const byId = new Map(head.map((d) => [String(d._id), d]));
  const items = headIds.flatMap((id) => (byId.has(id) ? [toBook(byId.get(id)!)] : []));
  if (query.status === 'reading' || query.status === 'finished') return { items, total: recorded };
  // The rest: books without any record (a record of another status is neither here nor in the head).
  const withRecord = statuses === null ? recorded : await countRecorded(s, reader, null, filter);
  const rest = (await total()) - withRecord;
  const restItems = await booksWithoutRecord(s, reader, filter, { _id: dir }, null, Math.max(0, offset - recorded), query.pageSize - items.length);
  return { items: [...items, ...restItems.map(toBook)], total: recorded + rest };
}

/**
 * A search with a `status` filter or the `read` order (the caller's reading state), without ever
 * loading all of the reader's records: `read` walks them in time order, batch by batch; `reading` and
 * `finished` take the first page-worth of each batch of records and merge; `unread` walks the
 * matching books in order, leaving out each chunk's books with a record. `total` counts every
 * matching book (the search's own count, for `unread` and the `read` order's rest).
 */
export async function readingPage(s: ReadingSources, query: BookQuery, filter: Filter<BookDocument>, sort: SortKeys, total: () => Promise<number>): Promise<Slice<Book>> {
  const reader = query.reader === undefined ? null : String(query.reader);
  if (reader === null) {
    if (query.status !== undefined && query.status !== 'unread') return { items: [], total: 0 };
    return readerlessPage(s, query, filter, sort, total);
  }
  if (query.sort.field === 'read') return readOrderPage(s, query, reader, filter, total);
  if (query.status === 'unread') return unreadPage(s, query, reader, filter, sort, await total());
  return recordedPage(s, query, reader, query.status as ReadingStatus, filter, sort);
}

/** Without a reader nothing has a record: every matching book is unread, in the order asked (`read`: by id). */
async function readerlessPage(s: ReadingSources, query: BookQuery, filter: Filter<BookDocument>, sort: SortKeys, total: () => Promise<number>): Promise<Slice<Book>> {
  const order: Sort = query.sort.field === 'read' ? { _id: query.sort.descending ? -1 : 1 } : sort;
  const [documents, count] = await Promise.all([
    s.books.find(filter, limited).sort(order).skip(offsetOf(query)).limit(query.pageSize).toArray(), total()]);
  return { items: documents.map(toBook), total: count };
}
