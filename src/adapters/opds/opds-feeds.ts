import { MEDIA_TYPES, type Book } from '../../domain/book.js';
import type { Page } from '../../domain/page.js';
import type { Shelf } from '../../domain/shelf.js';
import { OPDS2_TYPES } from './opds2-links.js';
import { el, xmlDocument, type XmlChild, type XmlElement } from './xml.js';

export const OPDS_TYPES = {
  navigation: 'application/atom+xml;profile=opds-catalog;kind=navigation',
  acquisition: 'application/atom+xml;profile=opds-catalog;kind=acquisition',
  entry: 'application/atom+xml;type=entry;profile=opds-catalog',
  openSearch: 'application/opensearchdescription+xml',
} as const;

export const OPDS_RELS = {
  acquisition: 'http://opds-spec.org/acquisition',
  image: 'http://opds-spec.org/image',
  thumbnail: 'http://opds-spec.org/image/thumbnail',
  sortNew: 'http://opds-spec.org/sort/new',
} as const;

const NS = {
  xmlns: 'http://www.w3.org/2005/Atom',
  'xmlns:dc': 'http://purl.org/dc/terms/',
  'xmlns:opds': 'http://opds-spec.org/2010/catalog',
  'xmlns:opensearch': 'http://a9.com/-/spec/opensearch/1.1/',
};

export const ROOT = '/opds';
const link = (rel: string, href: string, type: string, extra: Record<string, string | number> = {}) => el('link', { rel, href, type, ...extra });
const iso = (date: Date) => date.toISOString();
const latest = (dates: readonly Date[], fallback: Date) => (dates.length === 0 ? fallback : new Date(Math.max(...dates.map((d) => d.getTime()))));

export interface FeedHead {
  readonly id: string;
  readonly title: string;
  /** Path and query of this feed, without the page parameter. */
  readonly self: string;
  readonly kind: 'navigation' | 'acquisition';
  /** Path and query of the same feed in OPDS 2.0 (`/opds/v2/...`), without the page parameter. */
  readonly twin: string;
}

/** An entry of a navigation feed: a link to another feed. */
export interface NavigationItem {
  readonly id: string;
  readonly title: string;
  readonly text: string;
  readonly href: string;
  readonly rel: string;
  readonly kind: 'navigation' | 'acquisition';
  readonly updated: Date;
}

const withPage = (href: string, page: number) => `${href}${href.includes('?') ? '&' : '?'}page=${page}`;

function feed(head: FeedHead, updated: Date, page: Page<unknown> | null, entries: readonly XmlElement[]): string {
  const type = OPDS_TYPES[head.kind];
  const paging: XmlChild[] = page
    ? [
        page.page > 1 && link('previous', withPage(head.self, page.page - 1), type),
        page.page < page.totalPages && link('next', withPage(head.self, page.page + 1), type),
        page.page > 1 && link('first', withPage(head.self, 1), type),
        page.totalPages > 1 && link('last', withPage(head.self, page.totalPages), type),
        el('opensearch:totalResults', {}, page.total),
        el('opensearch:itemsPerPage', {}, page.pageSize),
        el('opensearch:startIndex', {}, (page.page - 1) * page.pageSize + 1),
      ]
    : [];
  return xmlDocument(
    el('feed', NS,
      el('id', {}, head.id),
      el('title', {}, head.title),
      el('updated', {}, iso(updated)),
      el('author', {}, el('name', {}, 'Stacks')),
      link('self', page && page.page > 1 ? withPage(head.self, page.page) : head.self, type),
      link('start', ROOT, OPDS_TYPES.navigation),
      link('search', `${ROOT}/opensearch.xml`, OPDS_TYPES.openSearch),
      link('search', `${ROOT}/search?q={searchTerms}`, OPDS_TYPES.acquisition),
      link('alternate', page && page.page > 1 ? withPage(head.twin, page.page) : head.twin, OPDS2_TYPES.feed),
      ...paging,
      ...entries,
    ),
  );
}

export function navigationFeed(head: FeedHead, items: readonly NavigationItem[], page: Page<unknown> | null, now: Date): string {
  const entries = items.map((item) =>
    el('entry', {},
      el('title', {}, item.title),
      el('id', {}, item.id),
      el('updated', {}, iso(item.updated)),
      el('content', { type: 'text' }, item.text),
      link(item.rel, item.href, OPDS_TYPES[item.kind]),
    ));
  return feed(head, latest(items.map((i) => i.updated), now), page, entries);
}

/** The catalog entry of one book: metadata, the download and the cover. */
export function bookEntry(book: Book, asDocument = false): XmlElement {
  const base = `${ROOT}/books/${encodeURIComponent(book.id)}`;
  return el('entry', asDocument ? NS : {},
    el('title', {}, book.title),
    el('id', {}, `urn:stacks:book:${book.id}`),
    el('updated', {}, iso(book.updatedAt)),
    el('published', {}, iso(book.createdAt)),
    ...book.authors.map((name) => el('author', {}, el('name', {}, name))),
    book.language && el('dc:language', {}, book.language),
    book.publisher && el('dc:publisher', {}, book.publisher),
    book.published && el('dc:issued', {}, book.published),
    book.isbn && el('dc:identifier', {}, `urn:isbn:${book.isbn}`),
    ...book.tags.map((tag) => el('category', { term: tag, label: tag })),
    book.description && el('summary', { type: 'text' }, book.description),
    // A complete entry (its own document) links to itself and, with no alternate link, must hold content
    // (RFC 4287 4.1.1.1); a feed's partial entry links to its complete entry.
    asDocument && el('content', { type: 'text' }, book.description ?? [book.title, ...book.authors].join(' — ')),
    link(asDocument ? 'self' : 'alternate', base, OPDS_TYPES.entry),
    book.coverMediaType && link(OPDS_RELS.image, `${base}/cover`, book.coverMediaType),
    book.coverMediaType && link(OPDS_RELS.thumbnail, `${base}/cover`, book.coverMediaType),
    link(OPDS_RELS.acquisition, `${base}/file`, MEDIA_TYPES[book.format], { length: book.fileSize, title: book.fileName }),
  );
}

export function acquisitionFeed(head: FeedHead, page: Page<Book>, now: Date): string {
  return feed(head, latest(page.items.map((b) => b.updatedAt), now), page, page.items.map((book) => bookEntry(book)));
}

export function entryDocument(book: Book): string {
  return xmlDocument(bookEntry(book, true));
}

export function shelfItem(shelf: Shelf): NavigationItem & { readonly shelfId: string } {
  const count = `${shelf.bookCount} book${shelf.bookCount === 1 ? '' : 's'}`;
  return {
    shelfId: shelf.id,
    id: `urn:stacks:shelf:${shelf.id}`,
    title: shelf.name,
    text: shelf.description ? `${shelf.description} (${count})` : count,
    href: `${ROOT}/shelves/${encodeURIComponent(shelf.id)}`,
    rel: 'subsection',
    kind: 'acquisition',
    updated: shelf.updatedAt,
  };
}

/** The OpenSearch 1.1 description that tells a reader how to search; `baseUrl` is absolute. */
export function openSearchDescription(baseUrl: string): string {
  return xmlDocument(
    el('OpenSearchDescription', { xmlns: 'http://a9.com/-/spec/opensearch/1.1/' },
      el('ShortName', {}, 'Stacks'),
      el('Description', {}, 'Search the Stacks library by title, author, tag or series'),
      el('InputEncoding', {}, 'UTF-8'),
      el('OutputEncoding', {}, 'UTF-8'),
      el('Url', { type: OPDS_TYPES.acquisition, template: `${baseUrl}${ROOT}/search?q={searchTerms}` }),
    ),
  );
}
