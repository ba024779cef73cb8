import { BOOK_SORTS, type BookQuery } from '../../domain/book.js';
import { reversed, searchPlan, type GramCoverage } from './mongo-book-search.js';

/**
 * One kind of query the library repositories send: the fields its filter names, its sort, and the
 * index it relies on. `inMemorySort`: a selective filter picks the index and the server sorts the few
 * matches (top skip + limit only). `scan`: why this one reads a whole collection anyway.
 */
export interface QueryShape {
  readonly collection: 'books' | 'shelves' | 'shelf_books';
  readonly filter: readonly string[];
  readonly sort?: Readonly<Record<string, 1 | -1>>;
  readonly index: string;
  readonly inMemorySort?: true;
  readonly scan?: string;
}

const SEARCH_FILTERS: readonly Partial<BookQuery>[] = [
  {}, { format: 'epub' }, { author: 'a' }, { tag: 't' }, { q: 'abcd' }, { q: 'abc' }, { q: 'ab' }, { q: 'a' }, { q: 'ab', format: 'pdf' },
  { q: 'abcd', author: 'a', tag: 't', format: 'epub' }, { q: 'a', author: 'a' }, { q: 'abcd', tag: 't' }, { author: 'a', tag: 't' },
  { tag: 't', format: 'epub' },
];

const COVERAGES: readonly GramCoverage[] = ['all', 'three', 'none'];

/** Each search filter, and each with a `q` once more for each step of the search-gram backfill after an upgrade. */
const searchFilters = (): [Partial<BookQuery>, GramCoverage][] =>
  SEARCH_FILTERS.flatMap((f) => (f.q ? COVERAGES.map((c): [Partial<BookQuery>, GramCoverage] => [f, c]) : [[f, 'all']]));

const BEFORE_BACKFILL = 'counting a q the grams cannot answer (until the backfill after an upgrade is done, or holding the field separator, which HTTP refuses) reads every search text, within maxTimeMS';

/**
 * Every shape book search sends: each filter combination, each order both ways, and each order read
 * backwards for a deep page.
 */
function searchShapes(): QueryShape[] {
  const shapes: QueryShape[] = [];
  for (const [extra, grams] of searchFilters()) {
    for (const field of BOOK_SORTS) {
      for (const descending of [false, true]) {
        const plan = searchPlan({ page: 1, pageSize: 20, sort: { field, descending }, ...extra }, grams);
        const base = { collection: 'books' as const, filter: Object.keys(plan.filter), index: plan.index, ...(plan.inMemorySort ? { inMemorySort: true as const } : {}) };
        shapes.push({ ...base, sort: plan.sort }, { ...base, sort: reversed(plan.sort) as Record<string, 1 | -1> });
        if (base.filter.length === 0) continue;
        const unindexed = plan.index.startsWith('books_') && !plan.inMemorySort && !('format' in plan.filter);
        shapes.push({ collection: 'books', filter: base.filter, index: plan.index, ...(unindexed && grams !== 'all' ? { scan: BEFORE_BACKFILL } : {}) });
      }
    }
  }
  return shapes;
}

/**
 * The reading-state shapes (mongo-reading-search.ts): the search filters narrowed to one batch of the
 * reader's records (`_id` $in, at most READING_BATCH ids), read in the search's order or counted; the
 * page's books by id; and the `read` order's rest, walked by id (the planner may prefer a selective
 * filter's index and sort the few matches itself).
 */
function readingShapes(): QueryShape[] {
  const shapes: QueryShape[] = [{ collection: 'books', filter: ['_id'], index: '_id_' }];
  for (const [extra, grams] of searchFilters()) {
    for (const field of BOOK_SORTS) {
      for (const descending of [false, true]) {
        const plan = searchPlan({ page: 1, pageSize: 20, sort: { field, descending }, ...extra }, grams);
        const keys = Object.keys(plan.filter);
        shapes.push({ collection: 'books', filter: [...keys, '_id'], index: '_id_', inMemorySort: true, sort: plan.sort },
          { collection: 'books', filter: [...keys, '_id'], index: '_id_', inMemorySort: true });
        for (const d of [1, -1] as const) shapes.push({ collection: 'books', filter: keys, sort: { _id: d }, index: '_id_' });
      }
    }
  }
  return shapes;
}

/** Every query shape of the books, shelves and shelf_books repositories and of the start-up migration. */
export const QUERY_SHAPES: readonly QueryShape[] = [
  { collection: 'books', filter: ['_id'], index: '_id_' },
  { collection: 'books', filter: ['_id', 'version'], index: '_id_' },
  { collection: 'books', filter: ['_id', 'searchGramsVersion'], index: '_id_' },
  { collection: 'books', filter: ['sha256'], index: 'books_sha256' },
  { collection: 'books', filter: ['searchTokens'], index: 'books_search_tokens' },
  { collection: 'books', filter: ['searchGramsVersion'], index: 'books_search_grams_version' },
  // The KOReader digest backfill: the marked books, or (once, until recorded) every book by id.
  { collection: 'books', filter: ['digestsPending', '_id'], sort: { _id: 1 }, index: 'books_digests_pending' },
  { collection: 'books', filter: ['digestsPending'], sort: { _id: 1 }, index: 'books_digests_pending' },
  { collection: 'books', filter: ['_id', 'digestsPending'], index: '_id_' },
  { collection: 'books', filter: ['_id'], sort: { _id: 1 }, index: '_id_' },
  { collection: 'books', filter: [], sort: { _id: 1 }, index: '_id_' },
  ...searchShapes(),
  ...readingShapes(),
  { collection: 'shelves', filter: ['_id'], index: '_id_' },
  { collection: 'shelves', filter: ['ownerId'], sort: { nameKey: 1, _id: 1 }, index: 'shelves_owner_name_id' },
  { collection: 'shelves', filter: ['ownerId'], index: 'shelves_owner_name_id' },
  { collection: 'shelves', filter: ['isPublic'], sort: { nameKey: 1, _id: 1 }, index: 'shelves_public_name_id' },
  { collection: 'shelves', filter: ['isPublic'], index: 'shelves_public_name_id' },
  { collection: 'shelf_books', filter: ['_id'], index: '_id_' },
  { collection: 'shelf_books', filter: ['shelfId'], index: 'shelf_books_slot' },
  { collection: 'shelf_books', filter: ['shelfId'], sort: { position: 1 }, index: 'shelf_books_slot' },
  { collection: 'shelf_books', filter: ['shelfId'], sort: { position: -1 }, index: 'shelf_books_slot' },
  { collection: 'shelf_books', filter: ['shelfId'], sort: { shelfId: 1, position: 1 }, index: 'shelf_books_slot' },
  { collection: 'shelf_books', filter: ['bookId'], index: 'shelf_books_book' },
  { collection: 'shelf_books', filter: [], index: 'none', scan: 'finds shelves with clashing positions once, at the first start after the upgrade' },
];
