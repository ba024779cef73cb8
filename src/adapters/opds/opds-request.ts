import type { Request, Response } from 'express';
import { pipeline } from 'node:stream/promises';
import { BOOK_QUERY_MAX_LENGTH, BOOK_QUERY_PATTERN, BOOK_SORTS, type BookSort, type BookSortField } from '../../domain/book.js';
import { invalidInput } from '../../domain/error-catalogue.js';
import type { NotFoundError } from '../../domain/errors.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../domain/page.js';

/** Query parsing shared by the OPDS 1.2 and 2.0 routers: out-of-range values are a 422, never clamped. */
const ID = /^[A-Za-z0-9_-]{1,64}$/;
const WHOLE = /^[1-9]\d{0,5}$/;

/** A query parameter error; the field names its part so the error handler does not say `body`. */
const invalid = (field: string, message: string) => invalidInput('The request query is invalid.', [{ location: 'query', field, message }]);

function wholeNumber(req: Request, field: string, fallback: number, max: number): number {
  const raw = req.query[field];
  if (raw === undefined) return fallback;
  if (typeof raw === 'string' && WHOLE.test(raw) && Number(raw) <= max) return Number(raw);
  throw invalid(field, `must be a whole number from 1 to ${max}`);
}

/** `page`, 1-based. */
export function pageOf(req: Request): number {
  return wholeNumber(req, 'page', 1, 999_999);
}

/** `page_size`, as the REST API takes it (1..100, default 20). */
export function pageSizeOf(req: Request): number {
  return wholeNumber(req, 'page_size', DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
}

/** A `sort` in the REST API's form (`title`, `-added`, ...), or the fallback when absent. */
export function sortOf(req: Request, fallback: BookSort): BookSort {
  const raw = req.query['sort'];
  if (raw === undefined) return fallback;
  const field = typeof raw === 'string' ? raw.replace(/^-/, '') : '';
  if (!(BOOK_SORTS as readonly string[]).includes(field)) throw invalid('sort', `must be one of ${BOOK_SORTS.join(', ')}, optionally prefixed with -`);
  return { field: field as BookSortField, descending: (raw as string).startsWith('-') };
}

/** The search terms of `name` (1 to BOOK_QUERY_MAX_LENGTH characters once trimmed, no control character). */
export function searchTermsOf(req: Request, name: 'q' | 'query'): string {
  const raw = req.query[name];
  const terms = typeof raw === 'string' ? raw.trim() : '';
  if (terms === '' || terms.length > BOOK_QUERY_MAX_LENGTH) throw invalid(name, `must be 1-${BOOK_QUERY_MAX_LENGTH} characters`);
  if (!BOOK_QUERY_PATTERN.test(terms)) throw invalid(name, 'must not contain control characters');
  return terms;
}

/** The `:id` path parameter; an id that cannot exist is the resource's not-found error. */
export function idOf(req: Request, notFound: (id: string) => NotFoundError): string {
  const id = String(req.params['id']);
  if (!ID.test(id)) throw notFound(id.slice(0, 64));
  return id;
}

/** A host name, an IPv4 address or a bracketed IPv6 address, and an optional port: all a Host header may say. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

/**
 * The absolute base URL of the catalog for this request: PUBLIC_URL when it is set, else the request's
 * own scheme and host. A host that is not a plain host[:port] is never echoed: it gets `publicUrl`.
 */
export function baseUrlOf(req: Request, deps: { readonly publicUrl: string; readonly publicUrlFromRequest: boolean }): string {
  if (!deps.publicUrlFromRequest) return deps.publicUrl;
  const host = req.host;
  if (typeof host !== 'string' || host.length > 261 || !HOST.test(host)) return deps.publicUrl;
  return `${req.protocol === 'https' ? 'https' : 'http'}://${host.toLowerCase()}`;
}

/** Sends a body of an exact media type (a Buffer, so Express adds no charset of its own). */
export function sendBody(res: Response, type: string, body: string): void {
  res.setHeader('Content-Type', type);
  res.send(Buffer.from(body, 'utf8'));
}

export async function stream(req: Request, res: Response, body: () => Promise<AsyncIterable<Uint8Array>>): Promise<void> {
  if (req.method === 'HEAD') return void res.end();
  await pipeline(await body(), res).catch((error: unknown) => {
    if ((error as { code?: string }).code !== 'ERR_STREAM_PREMATURE_CLOSE') throw error;
  });
}
