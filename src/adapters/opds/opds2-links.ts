import type { Page } from '../../domain/page.js';

/** OPDS 2.0 media types, link relations and the URLs of the /opds/v2 catalog. */
export const OPDS2_TYPES = {
  feed: 'application/opds+json',
  publication: 'application/opds-publication+json',
  authentication: 'application/opds-authentication+json',
} as const;

export const OPDS2_RELS = {
  acquisition: 'http://opds-spec.org/acquisition',
  image: 'http://opds-spec.org/image',
  sortNew: 'http://opds-spec.org/sort/new',
  authDocument: 'http://opds-spec.org/auth/document',
  basicAuth: 'http://opds-spec.org/auth/basic',
} as const;

export const V2 = '/opds/v2';
export const AUTH_DOCUMENT = `${V2}/auth`;
export const SEARCH_TEMPLATE = `${V2}/search{?query}`;

export interface Opds2Link {
  readonly href: string;
  readonly type?: string;
  readonly rel?: string;
  readonly title?: string;
  readonly templated?: boolean;
  readonly width?: number;
  readonly height?: number;
  readonly properties?: { readonly numberOfItems?: number };
}

/** A feed's address: its path and the query parameters that select it (page excluded). */
export interface FeedAddress {
  readonly path: string;
  readonly params?: Readonly<Record<string, string | undefined>>;
}

export function hrefOf(address: FeedAddress, page?: number): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(address.params ?? {})) if (value !== undefined) params.set(name, value);
  if (page !== undefined && page > 1) params.set('page', String(page));
  const query = params.toString();
  return query === '' ? address.path : `${address.path}?${query}`;
}

const feedLink = (rel: string, href: string): Opds2Link => ({ rel, href, type: OPDS2_TYPES.feed });

/** OPDS 2.0 "Pagination": first/previous/next/last, with `previous` never past the last page. */
export function pagingLinks(address: FeedAddress, page: Page<unknown>): Opds2Link[] {
  if (page.totalPages === 0) return [];
  return [
    feedLink('first', hrefOf(address, 1)),
    ...(page.page > 1 ? [feedLink('previous', hrefOf(address, Math.min(page.page - 1, page.totalPages)))] : []),
    ...(page.page < page.totalPages ? [feedLink('next', hrefOf(address, page.page + 1))] : []),
    feedLink('last', hrefOf(address, page.totalPages)),
  ];
}

/** The links every /opds/v2 feed carries: itself, the root, search, the authentication document and its OPDS 1.2 twin. */
export function catalogLinks(self: string, twin: { href: string; type: string }): Opds2Link[] {
  return [
    feedLink('self', self),
    feedLink('start', V2),
    { rel: 'search', href: SEARCH_TEMPLATE, type: OPDS2_TYPES.feed, templated: true },
    { rel: OPDS2_RELS.authDocument, href: AUTH_DOCUMENT, type: OPDS2_TYPES.authentication },
    { rel: 'alternate', href: twin.href, type: twin.type },
  ];
}
