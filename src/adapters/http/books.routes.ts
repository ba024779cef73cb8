import type { Request, Response } from 'express';
import { pipeline } from 'node:stream/promises';
import type { ByteRange } from '../../application/ports.js';
import type { DeleteBook } from '../../application/use-cases/delete-book.js';
import type { GetBook } from '../../application/use-cases/get-book.js';
import type { GetBookCover } from '../../application/use-cases/get-book-cover.js';
import type { GetBookFile } from '../../application/use-cases/get-book-file.js';
import type { ListBooks } from '../../application/use-cases/list-books.js';
import type { UpdateBook } from '../../application/use-cases/update-book.js';
import type { UploadBook } from '../../application/use-cases/upload-book.js';
import type { MetadataPatch } from '../../domain/book-metadata.js';
import { invalidInput, rangeNotSatisfiable } from '../../domain/error-catalogue.js';
import { multipartUpload } from './multipart-upload.js';
import { presentBook } from './presenters/book-presenter.js';
import { route, type AnyRoute } from './route.js';
import { BookListQuery, BookListSchema, BookParams, BookSchema, UPLOAD_FIELD_NAMES, UpdateBookBody, UploadFields, UploadForm } from './schemas/books.js';
import { presentPage } from './schemas/common.js';
import { controlCharacterIssues } from './schemas/text.js';
import { z } from './zod.js';

export interface BookDeps {
  readonly upload: UploadBook;
  readonly list: ListBooks;
  readonly get: GetBook;
  readonly update: UpdateBook;
  readonly remove: DeleteBook;
  readonly file: GetBookFile;
  readonly cover: GetBookCover;
  readonly maxUploadBytes: number;
}

const tag = 'Books';
const binary = (description: string, contentType: string) => ({ description, contentType, schema: z.string().openapi({ format: 'binary' }) });

const splitList = (value: string) => value.split(',').map((s) => s.trim()).filter(Boolean);

/** The override text parts as metadata; empty parts mean "not given". */
export function overridesFrom(fields: Readonly<Record<string, string>>): MetadataPatch {
  const given = Object.fromEntries(Object.entries(fields).filter(([, v]) => v.trim() !== ''));
  const parsed = UploadFields.safeParse(given);
  const errors = parsed.success
    ? controlCharacterIssues(parsed.data)
    : parsed.error.issues.map((i) => ({ field: i.path.map(String).join('.') || '(root)', message: i.message }));
  if (!parsed.success || errors.length > 0) throw invalidInput('The upload fields are invalid.', errors);
  const f = parsed.data;
  const patch: MetadataPatch = {};
  if (f.title !== undefined) patch.title = f.title;
  if (f.authors !== undefined) patch.authors = splitList(f.authors);
  if (f.tags !== undefined) patch.tags = splitList(f.tags);
  if (f.series !== undefined) patch.series = f.series;
  if (f.series_index !== undefined) patch.seriesIndex = Number(f.series_index);
  if (f.description !== undefined) patch.description = f.description;
  if (f.language !== undefined) patch.language = f.language;
  if (f.isbn !== undefined) patch.isbn = f.isbn;
  if (f.published !== undefined) patch.published = f.published;
  return patch;
}

function changesFrom(body: z.infer<typeof UpdateBookBody>): MetadataPatch {
  const { series_index: seriesIndex, ...rest } = body;
  return { ...rest, ...(seriesIndex !== undefined ? { seriesIndex } : {}) };
}

/** One satisfiable byte range, or null for the whole file (absent, malformed, multi-range or stale If-Range). */
function requestedRange(req: Request, size: number, etag: string): ByteRange | null {
  if (!req.headers.range) return null;
  const ifRange = req.headers['if-range'];
  if (ifRange !== undefined && ifRange !== etag) return null;
  const ranges = req.range(size, { combine: true });
  if (ranges === -1) throw rangeNotSatisfiable(size);
  if (ranges === undefined || ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return null;
  return { start: ranges[0]!.start, end: ranges[0]!.end };
}

/** Streams the body; a client that goes away mid-download is not an error. */
async function send(body: AsyncIterable<Uint8Array> | null, res: Response): Promise<void> {
  if (!body) return void res.end();
  await pipeline(body, res).catch((error: unknown) => {
    if ((error as { code?: string }).code !== 'ERR_STREAM_PREMATURE_CLOSE') throw error;
  });
}

export function bookRoutes(deps: BookDeps): AnyRoute[] {
  return [
    route({
      operationId: 'listBooks',
      method: 'get', path: '/api/books', summary: 'List, search, filter and sort books', tag, auth: true, query: BookListQuery,
      responses: { 200: { description: 'A page of books', schema: BookListSchema } },
      errors: [403],
      async handle({ auth, query, res }) {
        const page = await deps.list.execute(auth.actor, {
          q: query.q?.trim() || undefined, author: query.author, tag: query.tag, format: query.format,
          status: query.status, sort: query.sort,
          page: query.page, pageSize: query.page_size,
        });
        res.json(presentPage(page, presentBook));
      },
    }),
    route({
      operationId: 'uploadBook',
      method: 'post', path: '/api/books', summary: 'Upload a book (multipart: one part named file, optional overrides)', tag, auth: true,
      rawBody: { contentType: 'multipart/form-data', schema: UploadForm },
      responses: { 201: { description: 'The stored book; Location names it', schema: BookSchema } },
      errors: [403, 409, 413, 415, 422],
      async handle({ auth, req, res }) {
        const upload = multipartUpload(req, res, { maxFileBytes: deps.maxUploadBytes, fieldNames: UPLOAD_FIELD_NAMES });
        try {
          const book = await deps.upload.execute(auth.actor, {
            content: upload.content,
            details: async () => {
              const { fileName, fields } = await upload.finished();
              return { fileName, overrides: overridesFrom(fields) };
            },
          });
          res.status(201).location(`/api/books/${encodeURIComponent(book.id)}`).json(presentBook(book));
        } finally {
          upload.discard();
        }
      },
    }),
    route({
      operationId: 'getBook',
      method: 'get', path: '/api/books/{id}', summary: 'Read a book', tag, auth: true, params: BookParams,
      responses: { 200: { description: 'The book', schema: BookSchema } },
      errors: [403, 404],
      async handle({ auth, params, res }) {
        res.json(presentBook(await deps.get.execute(auth.actor, params.id)));
      },
    }),
    route({
      operationId: 'updateBook',
      method: 'patch', path: '/api/books/{id}', summary: 'Edit the metadata of a book (uploader or admin)', tag, auth: true,
      params: BookParams, body: UpdateBookBody,
      responses: { 200: { description: 'The updated book', schema: BookSchema } },
      errors: [403, 404],
      async handle({ auth, params, body, res }) {
        res.json(presentBook(await deps.update.execute(auth.actor, { id: params.id, changes: changesFrom(body) })));
      },
    }),
    route({
      operationId: 'deleteBook',
      method: 'delete', path: '/api/books/{id}', summary: 'Delete a book, its file, its cover and its shelf entries', tag, auth: true,
      params: BookParams,
      responses: { 204: { description: 'Deleted' } },
      errors: [403, 404],
      async handle({ auth, params, res }) {
        await deps.remove.execute(auth.actor, params.id);
        res.status(204).end();
      },
    }),
    route({
      operationId: 'downloadBookFile',
      method: 'get', path: '/api/books/{id}/file', summary: 'Download the book file (ETag, Range)', tag, auth: true, params: BookParams,
      responses: {
        200: binary('The whole file, as an attachment, with its detected media type (EPUB, PDF, MOBI/AZW3, CBZ, FB2, text)', '*/*'),
        206: binary('One byte range of the file, with the file\'s media type', '*/*'),
        304: { description: 'Not modified (If-None-Match)' },
      },
      errors: [403, 404, 416],
      async handle({ auth, params, req, res }) {
        const file = await deps.file.execute(auth.actor, params.id);
        res.setHeader('ETag', file.etag);
        res.setHeader('Accept-Ranges', 'bytes');
        if (req.fresh) return void res.status(304).end();
        const range = requestedRange(req, file.size, file.etag);
        const body = req.method === 'HEAD' ? null : await file.open(range ?? undefined);
        res.attachment(file.fileName);
        // Exactly the format's media type: res.type would add `charset=utf-8` to a text file kept as uploaded (maybe UTF-16 or Windows-1252).
        res.setHeader('Content-Type', file.mediaType);
        if (range) res.status(206).setHeader('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`);
        res.setHeader('Content-Length', String(range ? range.end - range.start + 1 : file.size));
        await send(body, res);
      },
    }),
    route({
      operationId: 'getBookCover',
      method: 'get', path: '/api/books/{id}/cover', summary: 'The cover image of a book', tag, auth: true, params: BookParams,
      responses: { 200: binary('The cover image', 'image/*') },
      errors: [403, 404],
      async handle({ auth, params, res }) {
        const cover = await deps.cover.execute(auth.actor, params.id);
        res.type(cover.mediaType);
        await send(cover.body, res);
      },
    }),
  ];
}
