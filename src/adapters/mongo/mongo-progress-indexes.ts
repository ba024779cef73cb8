import type { IndexDescription } from 'mongodb';

/**
 * The indexes of `progress` (one record per (user, book): its `_id` is the pair): a user's records by
 * recency, ties by book (the `read` order, walked in batches); a user's records of one status, by book
 * (the `status` filter, walked in batches); a book's, for its deletion.
 */
export const PROGRESS_INDEXES: IndexDescription[] = [
  { key: { userId: 1, updatedAt: 1, bookId: 1 }, name: 'progress_user_recent_book' },
  { key: { userId: 1, status: 1, bookId: 1 }, name: 'progress_user_status' },
  { key: { bookId: 1 }, name: 'progress_book' },
];
