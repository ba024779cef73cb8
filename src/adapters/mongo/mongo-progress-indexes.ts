import type { IndexDescription } from 'mongodb';

/** The indexes of `progress`: one record per (user, book); a user's records by recency; a book's, for its deletion. */
export const PROGRESS_INDEXES: IndexDescription[] = [
  { key: { userId: 1, bookId: 1 }, name: 'progress_user_book', unique: true },
  { key: { userId: 1, updatedAt: 1 }, name: 'progress_user_recent' },
  { key: { bookId: 1 }, name: 'progress_book' },
];
