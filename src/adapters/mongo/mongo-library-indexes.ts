import type { IndexDescription } from 'mongodb';

/** Sort keys of each book order, ascending; descending orders walk the `_desc` twin or the same index backwards. */
export const BOOK_SORT_INDEXES: ReadonlyArray<[string, Record<string, 1 | -1>]> = [
  ['title', { titleKey: 1, _id: 1 }],
  ['author', { authorMissing: 1, authorKey: 1, _id: 1 }],
  ['author_desc', { authorMissing: 1, authorKey: -1, _id: -1 }],
  ['added', { createdAt: 1, _id: 1 }],
  ['published', { publishedMissing: 1, published: 1, _id: 1 }],
  ['published_desc', { publishedMissing: 1, published: -1, _id: -1 }],
];

/**
 * The equality prefixes a book order is kept under: none (every book), one format, one author, one
 * tag. A filtered page walks its prefix's index in order and stops after `skip + limit` entries; its
 * total is counted from the same prefix's keys. `authorKeys` and `tagKeys` are arrays (multikey): an
 * equality on them still reads the rest of the key in order, as no sort field is an array.
 */
export const BOOK_ORDER_PREFIXES: ReadonlyArray<[string, Record<string, 1>]> = [
  ['', {}],
  ['format_', { format: 1 }],
  ['by_author_', { authorKeys: 1 }],
  ['by_tag_', { tagKeys: 1 }],
];

/** Indexes of the books, shelves and shelf_books collections; every library query names one of these. */
export const LIBRARY_INDEXES: Readonly<Record<'books' | 'shelves' | 'shelf_books', IndexDescription[]>> = {
  books: [
    { key: { sha256: 1 }, name: 'books_sha256', unique: true },
    ...BOOK_ORDER_PREFIXES.flatMap(([prefix, equality]) =>
      BOOK_SORT_INDEXES.map(([name, key]): IndexDescription => ({ key: { ...equality, ...key }, name: `books_${prefix}${name}` }))),
    { key: { searchTokens: 1 }, name: 'books_search_tokens' },
    { key: { searchGramsVersion: 1 }, name: 'books_search_grams_version' },
    // Books whose KOReader digests are still to be computed (set at upload, cleared with the digests): the backfill's list.
    { key: { digestsPending: 1, _id: 1 }, name: 'books_digests_pending', partialFilterExpression: { digestsPending: true } },
  ],
  shelves: [
    { key: { ownerId: 1, nameKey: 1 }, name: 'shelves_owner_name', unique: true },
    { key: { ownerId: 1, nameKey: 1, _id: 1 }, name: 'shelves_owner_name_id' },
    { key: { isPublic: 1, nameKey: 1, _id: 1 }, name: 'shelves_public_name_id' },
  ],
  shelf_books: [
    // Unique, so a shelf's order is its positions alone; `_id` (the shelf and book pair) keeps a book on a shelf once.
    { key: { shelfId: 1, position: 1 }, name: 'shelf_books_slot', unique: true },
    { key: { bookId: 1 }, name: 'shelf_books_book' },
  ],
};

/**
 * Indexes earlier versions created that the current ones replace or make redundant: dropped by
 * housekeeping once their replacements are built (an older instance still running during a rolling
 * upgrade may create one again at its next start; the next housekeeping run drops it again).
 */
export const SUPERSEDED_INDEXES: Readonly<Record<string, readonly string[]>> = {
  // books_by_author_* and books_by_tag_* begin with the author and tag keys.
  books: ['books_format', 'books_author_keys', 'books_tag_keys'],
  shelves: ['shelves_name', 'shelves_public_name'],
  // `_id` already is the (shelf, book) pair; the unique slot index orders a shelf by position alone.
  shelf_books: ['shelf_books_position', 'shelf_books_member', 'shelf_books_order'],
  // `_id` already is the (user, book) pair; progress_user_status and progress_user_recent_book begin with userId.
  progress: ['progress_user_book', 'progress_user_recent'],
  // Leases are only ever read by `_id`.
  leases: ['leases_expiry'],
};
