import type { OwnerRef } from './owner.js';
import type { ReadingStatus } from './reading-progress.js';

export const BOOK_FORMATS = ['epub', 'pdf', 'mobi', 'azw3', 'cbz', 'fb2', 'txt'] as const;
export type BookFormat = (typeof BOOK_FORMATS)[number];

export const MEDIA_TYPES: Readonly<Record<BookFormat, string>> = {
  epub: 'application/epub+zip',
  pdf: 'application/pdf',
  mobi: 'application/x-mobipocket-ebook',
  azw3: 'application/x-mobi8-ebook',
  cbz: 'application/vnd.comicbook+zip',
  fb2: 'application/x-fictionbook+xml',
  // No charset: a text file is stored as uploaded, in UTF-8, UTF-16 or Windows-1252.
  txt: 'text/plain',
};

/** The metadata fields a person may edit, and that a file's metadata supplies. */
export interface BookMetadata {
  readonly title: string;
  readonly authors: readonly string[];
  readonly description: string | null;
  readonly publisher: string | null;
  readonly language: string | null;
  /** ISO 8601 date or partial date (`2019`, `2019-04`, `2019-04-01`). */
  readonly published: string | null;
  readonly isbn: string | null;
  readonly tags: readonly string[];
  readonly series: string | null;
  readonly seriesIndex: number | null;
}

export interface Book extends BookMetadata {
  readonly id: string;
  readonly format: BookFormat;
  /** Display name for downloads; never used as a storage path. */
  readonly fileName: string;
  readonly fileSize: number;
  readonly sha256: string;
  /** Media type of the cover image, null when the book has none. */
  readonly coverMediaType: string | null;
  readonly owner: OwnerRef;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** The longest search text (`q`) a book search accepts. */
export const BOOK_QUERY_MAX_LENGTH = 200;

/** What a search text (`q`) may hold: no control character (C0, DEL or C1), so no NUL and no SEARCH_SEPARATOR. */
export const BOOK_QUERY_PATTERN = /^[^\x00-\x1f\x7f-\x9f]*$/;

/** Keeps the fields of the search text apart, so a match never spans two of them. */
export const SEARCH_SEPARATOR = '\u001f';

/** What `q` matches: title, authors, tags and series, lower-cased and joined by SEARCH_SEPARATOR. */
export function bookSearchText(book: Pick<Book, 'title' | 'authors' | 'tags' | 'series'>): string {
  return [book.title, ...book.authors, ...book.tags, book.series ?? ''].join(SEARCH_SEPARATOR).toLowerCase();
}

/** `read` orders by the reader's last progress write; books never read sort last either way. */
export const BOOK_SORTS = ['title', 'author', 'added', 'published', 'read'] as const;
export type BookSortField = (typeof BOOK_SORTS)[number];

export interface BookSort {
  readonly field: BookSortField;
  readonly descending: boolean;
}

export interface BookQuery {
  /** Case-insensitive substring over title, authors, tags and series. */
  readonly q?: string;
  readonly author?: string;
  readonly tag?: string;
  readonly format?: BookFormat;
  /** The reader's state of the book (a book without progress is `unread`). */
  readonly status?: ReadingStatus;
  /** Whose reading state `status` and the `read` sort use; set by the use case from the caller. */
  readonly reader?: string;
  readonly sort: BookSort;
  readonly page: number;
  readonly pageSize: number;
}

/** Blob keys are derived from the id only, never from client input. */
export function bookFileKey(bookId: string): string {
  return `${bookId}.book`;
}

export function bookCoverKey(bookId: string): string {
  return `${bookId}.cover`;
}
