import { BOOK_FORMATS, BOOK_QUERY_MAX_LENGTH, BOOK_QUERY_PATTERN, BOOK_SORTS, type BookSort, type BookSortField } from '../../../domain/book.js';
import { BOOK_FIELD_LIMITS as L, isPartialDate } from '../../../domain/book-metadata.js';
import { READING_STATUSES } from '../../../domain/reading-progress.js';
import { z } from '../zod.js';
import { idParam, listOf, pageQuery, timestamp } from './common.js';

const UploaderSchema = z.object({ id: z.string(), username: z.string() }).strict().openapi('BookUploader');

export const BookSchema = z
  .object({
    id: z.string(),
    title: z.string(),
    authors: z.array(z.string()),
    description: z.string().nullable(),
    publisher: z.string().nullable(),
    language: z.string().nullable(),
    published: z.string().nullable().openapi({ description: 'YYYY, YYYY-MM or YYYY-MM-DD' }),
    isbn: z.string().nullable(),
    tags: z.array(z.string()),
    series: z.string().nullable(),
    series_index: z.number().nullable(),
    format: z.enum(BOOK_FORMATS),
    file_name: z.string().openapi({ description: 'Display name for downloads' }),
    file_size: z.number().int(),
    sha256: z.string(),
    has_cover: z.boolean(),
    cover_url: z.string().nullable(),
    download_url: z.string(),
    uploaded_by: UploaderSchema,
    created_at: timestamp,
    updated_at: timestamp,
  })
  .strict()
  .openapi('Book');

export const BookListSchema = listOf(BookSchema, 'BookList');

export const BookParams = z.object({ id: idParam }).strict();

const SORTS = BOOK_SORTS.flatMap((s) => [s, `-${s}`]) as [string, ...string[]];

/** `title` or `-title` as the domain's sort. */
const toBookSort = (sort: string): BookSort => ({ field: sort.replace(/^-/, '') as BookSortField, descending: sort.startsWith('-') });

export const BookListQuery = z
  .object({
    q: z.string().max(BOOK_QUERY_MAX_LENGTH).regex(BOOK_QUERY_PATTERN, 'must not contain control characters').optional().openapi({ description: 'Case-insensitive match on title, authors, tags and series' }),
    author: z.string().min(1).max(L.author).optional().openapi({ description: 'Exact author, case-insensitive' }),
    tag: z.string().min(1).max(L.tag).optional().openapi({ description: 'Exact tag, case-insensitive' }),
    format: z.enum(BOOK_FORMATS).optional(),
    status: z.enum(READING_STATUSES).optional().openapi({ description: 'The caller\'s reading state (a book never opened is unread)' }),
    sort: z.enum(SORTS).default('-added').openapi({ description: 'A field, optionally prefixed with - for descending; read is the caller\'s last progress (never read last)' }).transform(toBookSort),
    ...pageQuery,
  })
  .strict();

const partialDate = z.string().refine(isPartialDate, 'must be YYYY, YYYY-MM or YYYY-MM-DD');

/** The editable fields; everything else (owner, sha256, id, file fields) is refused. */
export const UpdateBookBody = z
  .object({
    title: z.string().max(L.title * 2),
    authors: z.array(z.string().max(L.author)).max(L.authors),
    description: z.string().max(L.description).nullable(),
    publisher: z.string().max(L.publisher).nullable(),
    language: z.string().max(L.language).nullable(),
    published: partialDate.nullable(),
    isbn: z.string().max(L.isbnInput).nullable(),
    tags: z.array(z.string().max(L.tag)).max(L.tags),
    series: z.string().max(L.series).nullable(),
    series_index: z.number().min(0).max(L.seriesIndex).nullable(),
  })
  .partial()
  .strict()
  .refine((body) => Object.keys(body).length > 0, 'must change at least one field')
  .openapi('BookChanges');

/** Override text parts of an upload; `authors` and `tags` are comma-separated. */
export const UploadFields = z
  .object({
    title: z.string().max(L.title * 2),
    authors: z.string().max(L.author * L.authors),
    tags: z.string().max(L.tag * L.tags),
    series: z.string().max(L.series),
    series_index: z.string().regex(/^\d{1,6}(\.\d{1,2})?$/, 'must be a number like 3 or 2.5'),
    description: z.string().max(L.description),
    language: z.string().max(L.language),
    isbn: z.string().max(L.isbnInput),
    published: partialDate,
  })
  .partial()
  .strict();

export const UPLOAD_FIELD_NAMES: ReadonlySet<string> = new Set(Object.keys(UploadFields.shape));

/** The multipart form, as documented: the file plus the optional overrides. */
export const UploadForm = UploadFields.extend({
  file: z.string().openapi({ type: 'string', format: 'binary', description: 'The book file (EPUB, PDF, MOBI/AZW3, CBZ, FB2 or plain text)' }),
}).openapi('BookUpload');
