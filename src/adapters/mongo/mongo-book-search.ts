import type { Filter, Sort } from 'mongodb';
import { BOOK_QUERY_MAX_LENGTH, type BookQuery, type BookSort } from '../../domain/book.js';
import { queryGrams, SEARCH_GRAM_LENGTH, shortQueryGram } from '../../domain/book-search-grams.js';
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

/** Picks the one gram of a long `q` the index is sent (the rarest: see GramFrequencies); the first when not given. */
export type GramChoice = (grams: readonly string[]) => string;

/** The lower-cased, length-capped `q` a plan searches for. */
export const searchedText = (q: string): string => String(q).slice(0, MAX_QUERY_LENGTH).toLowerCase();

/** The three-character grams of a long `q` the index could be sent, or null when one gram (or none) answers it alone. */
export function candidateGrams(query: BookQuery, grams: GramCoverage): string[] | null {
  if (!query.q || grams === 'none') return null;
  const text = searchedText(query.q);
  const tokens = queryGrams(text);
  return tokens && Array.from(text).length > SEARCH_GRAM_LENGTH ? tokens : null;
}

/**
 * Every value is a string built here from the parsed query; user text only ever reaches `$regex` escaped.
 * A `q` the stored runs hold exactly (one to three characters once every book has every run, three
 * before) is one equality on the grams. A longer one sends the index its one rarest gram (`choose`)
 * and the substring (`$regex` on `searchText`) settles it: every longer `q` has the same shape, so
 * long queries add no plan-cache entries. An author or tag filter walks its own index in the sort's
 * order (`books_by_author_*`, `books_by_tag_*`) and stops after `skip + limit`. Whatever the grams
 * cannot answer yet (an upgrade's backfill still running) or at all (a `q` holding the field
 * separator) matches the search text alone, within maxTimeMS, so a book not yet migrated is still found.
 */
export function searchPlan(query: BookQuery, grams: GramCoverage = 'all', choose: GramChoice = (all) => all[0] as string): SearchPlan {
  const filter: Filter<BookDocument> = {};
  let selectiveIndex: string | null = null;
  if (query.q) {
    const q = searchedText(query.q);
    const exact = grams === 'all' ? shortQueryGram(q) ?? wholeGram(q) : grams === 'three' ? wholeGram(q) : null;
    const long = exact === null ? candidateGrams(query, grams) : null;
    if (exact !== null) filter.searchTokens = exact;
    else if (long) filter.searchTokens = choose(long);
    if (exact === null) filter.searchText = { $regex: escapeRegex(q) };
    if (filter.searchTokens !== undefined) selectiveIndex = 'books_search_tokens';
  }
  const sortIndex = SORT_INDEX[indexedSort(query.sort)](query.sort.descending);
  const sort = SORTS[indexedSort(query.sort)](query.sort.descending ? -1 : 1);
  if (query.format !== undefined) filter.format = String(query.format) as BookDocument['format'];
  let ordered: string | null = query.format !== undefined ? `books_format_${sortIndex}` : `books_${sortIndex}`;
  if (query.author !== undefined) {
    filter.authorKeys = String(query.author).toLowerCase();
    ordered = `books_by_author_${sortIndex}`;
  }
  if (query.tag !== undefined) {
    filter.tagKeys = String(query.tag).toLowerCase();
    if (query.author === undefined) ordered = `books_by_tag_${sortIndex}`;
  }
  if (query.author === undefined && query.tag === undefined && selectiveIndex !== null) ordered = null;
  if (ordered !== null) return { filter, sort, index: ordered, inMemorySort: false };
  return { filter, sort, index: selectiveIndex as string, inMemorySort: true };
}

/** A `q` of exactly three characters is itself one stored run. */
function wholeGram(q: string): string | null {
  const tokens = queryGrams(q);
  return tokens !== null && tokens.length === 1 && tokens[0] === q ? q : null;
}

/** The same order backwards, for reading a deep page from the far end. */
export function reversed(sort: SortKeys): Sort {
  return Object.fromEntries(Object.entries(sort).map(([key, direction]) => [key, -direction as 1 | -1]));
}

/** Whether a filter has no condition at all (its total then comes from the collection's metadata). */
export function isUnfiltered(filter: Filter<BookDocument>): boolean {
  return Object.keys(filter).length === 0;
}
