import type { IndexDescription } from 'mongodb';

/** Sort keys of each book order, ascending; descending orders walk the `_desc` twin or the same index backwards. */
const BOOK_SORT_INDEXES: ReadonlyArray<[string, Record<string, 1 | -1>]> = [
  ['title', { titleKey: 1, _id: 1 }],
  ['author', { authorMissing: 1, authorKey: 1, _id: 1 }],
  ['author_desc', { authorMissing: 1, authorKey: -1, _id: -1 }],
  ['added', { createdAt: 1, _id: 1 }],
  ['published', { publishedMissing: 1, published: 1, _id: 1 }],
  ['published_desc', { publishedMissing: 1, published: -1, _id: -1 }],
];

/** Indexes of the books, shelves and shelf_books collections; every library query names one of these. */
export const LIBRARY_INDEXES: Readonly<Record<'books' | 'shelves' | 'shelf_books', IndexDescription[]>> = {
  books: [
    { key: { sha256: 1 }, name: 'books_sha256', unique: true },
    ...BOOK_SORT_INDEXES.map(([name, key]): IndexDescription => ({ key, name: `books_${name}` })),
    ...BOOK_SORT_INDEXES.map(([name, key]): IndexDescription => ({ key: { format: 1, ...key }, name: `books_format_${name}` })),
    { key: { authorKeys: 1 }, name: 'books_author_keys' },
    { key: { tagKeys: 1 }, name: 'books_tag_keys' },
    { key: { searchTokens: 1 }, name: 'books_search_tokens' },
    { key: { searchGramsVersion: 1 }, name: 'books_search_grams_version' },
  ],
  shelves: [
    { key: { ownerId: 1, nameKey: 1 }, name: 'shelves_owner_name', unique: true },
    { key: { ownerId: 1, nameKey: 1, _id: 1 }, name: 'shelves_owner_name_id' },
    { key: { isPublic: 1, nameKey: 1, _id: 1 }, name: 'shelves_public_name_id' },
  ],
  shelf_books: [
    { key: { shelfId: 1, bookId: 1 }, name: 'shelf_books_member', unique: true },
    { key: { shelfId: 1, position: 1 }, name: 'shelf_books_slot', unique: true },
    { key: { shelfId: 1, position: 1, bookId: 1 }, name: 'shelf_books_order' },
    { key: { bookId: 1 }, name: 'shelf_books_book' },
  ],
};

/** Indexes earlier versions created that these replace (dropped at start, before the new ones are built). */
export const SUPERSEDED_INDEXES: Readonly<Record<string, readonly string[]>> = {
  books: ['books_format'],
  shelves: ['shelves_name', 'shelves_public_name'],
  shelf_books: ['shelf_books_position'],
};
