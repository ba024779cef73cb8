import type { Filter } from 'mongodb';
import { bookSearchText, type Book, type BookFormat } from '../../domain/book.js';
import { SEARCH_GRAMS_VERSION, searchGrams } from '../../domain/book-search-grams.js';

/** A book as stored: the domain fields plus lower-cased keys for search, filters and sorts. */
export interface BookDocument {
  _id: string;
  title: string;
  authors: string[];
  description: string | null;
  publisher: string | null;
  language: string | null;
  published: string | null;
  isbn: string | null;
  tags: string[];
  series: string | null;
  seriesIndex: number | null;
  format: BookFormat;
  fileName: string;
  fileSize: number;
  sha256: string;
  coverMediaType: string | null;
  ownerId: string;
  ownerUsername: string;
  createdAt: Date;
  updatedAt: Date;
  titleKey: string;
  /** First author, lower-cased; '' when there is none (then `authorMissing` is 1). */
  authorKey: string;
  authorMissing: 0 | 1;
  publishedMissing: 0 | 1;
  authorKeys: string[];
  tagKeys: string[];
  /** Title, authors, tags and series, lower-cased, joined by U+001F so a match never spans two fields. */
  searchText: string;
  /** Every run of one to three characters of each field of `searchText` (multikey index books_search_tokens). */
  searchTokens: string[];
  /** Which `searchGrams` wrote `searchTokens` (SEARCH_GRAMS_VERSION); absent on books stored before version 2. */
  searchGramsVersion: number;
  /** Bumped by every transaction that puts the book on a shelf, so it conflicts with deleting the book. */
  shelvings?: number;
  /** Bumped by every metadata write, which compares it first; absent on books stored before it existed. */
  version?: number;
  /** Set at upload until the book's KOReader digests are stored (index books_digests_pending). */
  digestsPending?: true;
}

export function toBookDocument(book: Book): BookDocument {
  const firstAuthor = book.authors[0];
  return {
    _id: book.id,
    title: book.title,
    authors: [...book.authors],
    description: book.description,
    publisher: book.publisher,
    language: book.language,
    published: book.published,
    isbn: book.isbn,
    tags: [...book.tags],
    series: book.series,
    seriesIndex: book.seriesIndex,
    format: book.format,
    fileName: book.fileName,
    fileSize: book.fileSize,
    sha256: book.sha256,
    coverMediaType: book.coverMediaType,
    ownerId: book.owner.id,
    ownerUsername: book.owner.username,
    createdAt: new Date(book.createdAt.getTime()),
    updatedAt: new Date(book.updatedAt.getTime()),
    titleKey: book.title.toLowerCase(),
    authorKey: firstAuthor?.toLowerCase() ?? '',
    authorMissing: firstAuthor === undefined ? 1 : 0,
    publishedMissing: book.published === null ? 1 : 0,
    authorKeys: book.authors.map((a) => a.toLowerCase()),
    tagKeys: book.tags.map((t) => t.toLowerCase()),
    ...searchFields(book),
    version: 0,
  };
}

/** The fields a metadata edit rewrites: the metadata, its derived search and sort keys, and updatedAt. */
export function metadataFields(book: Book): Partial<BookDocument> {
  const d = toBookDocument(book);
  const { title, authors, description, publisher, language, published, isbn, tags, series, seriesIndex, updatedAt } = d;
  const { titleKey, authorKey, authorMissing, publishedMissing, authorKeys, tagKeys, searchText, searchTokens, searchGramsVersion } = d;
  return { title, authors, description, publisher, language, published, isbn, tags, series, seriesIndex, updatedAt,
    titleKey, authorKey, authorMissing, publishedMissing, authorKeys, tagKeys, searchText, searchTokens, searchGramsVersion };
}

/** The search text and its grams (marked with their version), all from the fields `q` matches. */
export function searchFields(book: Pick<Book, 'title' | 'authors' | 'tags' | 'series'>): Pick<BookDocument, 'searchText' | 'searchTokens' | 'searchGramsVersion'> {
  const searchText = bookSearchText(book);
  return { searchText, searchTokens: searchGrams(searchText), searchGramsVersion: SEARCH_GRAMS_VERSION };
}

/** Books whose grams an older `searchGrams` wrote, or none at all (index: books_search_grams_version, missing held as null). */
export function olderGrams(): Filter<BookDocument> {
  return { searchGramsVersion: { $not: { $gte: SEARCH_GRAMS_VERSION } } };
}

export function toBook(d: BookDocument): Book {
  return {
    id: d._id,
    title: d.title,
    authors: [...d.authors],
    description: d.description,
    publisher: d.publisher,
    language: d.language,
    published: d.published,
    isbn: d.isbn,
    tags: [...d.tags],
    series: d.series,
    seriesIndex: d.seriesIndex,
    format: d.format,
    fileName: d.fileName,
    fileSize: d.fileSize,
    sha256: d.sha256,
    coverMediaType: d.coverMediaType,
    owner: { id: d.ownerId, username: d.ownerUsername },
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}
