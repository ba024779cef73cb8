import type { BookQuery } from '../../../src/domain/book.js';

/** Every book, oldest first. */
export const aBookQuery = (): BookQuery => ({ sort: { field: 'added', descending: false }, page: 1, pageSize: 100 });
