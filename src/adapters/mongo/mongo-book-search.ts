import type { Filter, Sort } from 'mongodb';
import { BOOK_QUERY_MAX_LENGTH, type BookQuery, type BookSort } from '../../domain/book.js';
import { queryGrams, shortQueryGram } from '../../domain/book-search-grams.js';
import type { BookDocument } from './mongo-book-documents.js';
import { escapeRegex } from './mongo-database.js';

/** Longest `q` searched for; longer text is cut (the HTTP schema caps it lower still). */
export const MAX_QUERY_LENGTH = BOOK_QUERY_MAX_LENGTH;

type SortKeys = Record<string, 1 | -1>;

/** The `read` order is built from the reader's progress records (mongo-reading-search.ts); its filter is this plan's. */
type IndexedSortField = Exclude<BookSort['field'], 'read'>;
const indexedSort = (sort: BookSort): IndexedSortField => (sort.field === 'read' ? 'added' : sort.field);

/** Sort keys of each order (ascending); a missing key sorts last either way, ties by id in the same direction. */
const SORTS: Readonly<Record<IndexedSortField, (d: 1 | -1) => SortKeys>> = {
  title: (d) => ({ titleKey: d, _id: d }),
  author: (d) => ({ authorMissing: 1, authorKey: d, _id: d }),
  added: (d) => ({ createdAt: d, _id: d }),
  published: (d) => ({ publishedMissing: 1, published: d, _id: d }),
};

/** The sort index each order walks (forwards, or backwards for a plain descending order). */
const SORT_INDEX: Readonly<Record<IndexedSortField, (descending: boolean) => string>> = {
  title: () => 'title',
  author: (descending) => (descending ? 'author_desc' : 'author'),
  added: () => 'added',
  published: (descending) => (descending ? 'published_desc' : 'published'),
};

/**
 * How one search runs: its filter, its sort, the index it relies on, and whether the server sorts
 * the (few) matches itself (`inMemorySort`: a selective filter picks the index, the sort keeps only
 * the top `skip + limit`). Checked against the declared indexes in test/unit/mongo/mongo-query-shapes.test.ts.
 */
export interface SearchPlan {
  readonly filter: Filter<BookDocument>;
  readonly sort: SortKeys;
  readonly index: string;
  readonly inMemorySort: boolean;
}

/**
 * Which grams every book has: `all` (every run of one to three characters, SEARCH_GRAMS_VERSION),
 * `three` (books stored before version 2 hold the three-character runs only) or `none` (some book
 * stored before the grams existed holds none). The backfill after an upgrade brings each to `all`.
 */
export type GramCoverage = 'all' | 'three' | 'none';

/**
 * Every value is a string built here from the parsed query; user text only ever reaches `$regex` escaped.
 * A `q` of one or two characters is one equality on the grams once every book has its short runs; a
 * longer one needs all its three-character grams, then the substring. Whatever the grams cannot answer
 * yet (an upgrade's backfill still running) or at all (a `q` holding the field separator) matches the
 * search text alone, reading every search text within maxTimeMS, so a book not yet migrated is still found.
 */
export function searchPlan(query: BookQuery, grams: GramCoverage = 'all'): SearchPlan {
  const filter: Filter<BookDocument> = {};
  let selectiveIndex: string | null = null;
  const pick = (index: string) => { selectiveIndex ??= index; };
  if (query.q) {
    const q = String(query.q).slice(0, MAX_QUERY_LENGTH).toLowerCase();
    const run = grams === 'all' ? shortQueryGram(q) : null;
    const tokens = grams === 'none' ? null : queryGrams(q);
    if (run !== null) filter.searchTokens = run;
    else if (tokens) filter.searchTokens = { $all: tokens };
    if (run !== null || tokens) pick('books_search_tokens');
    if (run === null) filter.searchText = { $regex: escapeRegex(q) };
  }
  if (query.author !== undefined) {
    filter.authorKeys = String(query.author).toLowerCase();
    pick('books_author_keys');
  }
  if (query.tag !== undefined) {
    filter.tagKeys = String(query.tag).toLowerCase();
    pick('books_tag_keys');
  }
  const sortIndex = SORT_INDEX[indexedSort(query.sort)](query.sort.descending);
  if (query.format !== undefined) filter.format = String(query.format) as BookDocument['format'];
  const sort = SORTS[indexedSort(query.sort)](query.sort.descending ? -1 : 1);
  if (selectiveIndex !== null) return { filter, sort, index: selectiveIndex, inMemorySort: true };
  const index = query.format !== undefined ? `books_format_${sortIndex}` : `books_${sortIndex}`;
  return { filter, sort, index, inMemorySort: false };
}

/** The same order backwards, for reading a deep page from the far end. */
export function reversed(sort: SortKeys): Sort {
  return Object.fromEntries(Object.entries(sort).map(([key, direction]) => [key, -direction as 1 | -1]));
}

/** Whether a filter has no condition at all (its total then comes from the collection's metadata). */
export function isUnfiltered(filter: Filter<BookDocument>): boolean {
  return Object.keys(filter).length === 0;
}
