import { bookSearchText, type Book, type BookFormat } from '../../domain/book.js';
import { fromMillis, toMillis } from './sqlite-database.js';

/** A row of `books` as selected by BOOK_COLUMNS. */
export interface BookRow {
  id: string;
  title: string;
  authors: string;
  tags: string;
  description: string | null;
  publisher: string | null;
  language: string | null;
  published: string | null;
  isbn: string | null;
  series: string | null;
  series_index: number | null;
  format: BookFormat;
  file_name: string;
  file_size: number;
  sha256: string;
  cover_media_type: string | null;
  owner_id: string;
  owner_username: string;
  created_at: number;
  updated_at: number;
}

export const BOOK_COLUMNS = `books.id, title, authors, tags, description, publisher, language, published, isbn,
  series, series_index, format, file_name, file_size, sha256, cover_media_type, owner_id, owner_username,
  created_at, updated_at`;

/** Named parameters for INSERT and UPDATE of `books`. */
export function bookParams(book: Book): Record<string, unknown> {
  return {
    id: book.id,
    title: book.title,
    title_key: book.title.toLowerCase(),
    author_key: book.authors[0]?.toLowerCase() ?? null,
    authors: JSON.stringify(book.authors),
    tags: JSON.stringify(book.tags),
    description: book.description,
    publisher: book.publisher,
    language: book.language,
    published: book.published,
    isbn: book.isbn,
    series: book.series,
    series_index: book.seriesIndex,
    format: book.format,
    file_name: book.fileName,
    file_size: book.fileSize,
    sha256: book.sha256,
    cover_media_type: book.coverMediaType,
    owner_id: book.owner.id,
    owner_username: book.owner.username,
    search_text: bookSearchText(book),
    created_at: toMillis(book.createdAt),
    updated_at: toMillis(book.updatedAt),
  };
}

export function toBook(row: BookRow): Book {
  return {
    id: row.id,
    title: row.title,
    authors: JSON.parse(row.authors) as string[],
    description: row.description,
    publisher: row.publisher,
    language: row.language,
    published: row.published,
    isbn: row.isbn,
    tags: JSON.parse(row.tags) as string[],
    series: row.series,
    seriesIndex: row.series_index,
    format: row.format,
    fileName: row.file_name,
    fileSize: row.file_size,
    sha256: row.sha256,
    coverMediaType: row.cover_media_type,
    owner: { id: row.owner_id, username: row.owner_username },
    createdAt: fromMillis(row.created_at),
    updatedAt: fromMillis(row.updated_at),
  };
}
