import type { Book, BookSort } from '../../domain/book.js';
import type { Page } from '../../domain/page.js';
import type { Shelf } from '../../domain/shelf.js';
import { catalogLinks, hrefOf, OPDS2_TYPES, pagingLinks, V2, type FeedAddress, type Opds2Link } from './opds2-links.js';
import { publication, type Opds2Publication } from './opds2-publication.js';

/** OPDS 2.0 feeds: a navigation collection or a publications collection, with paging and facets. */
export interface FeedMetadata {
  readonly title: string;
  readonly numberOfItems?: number;
  readonly itemsPerPage?: number;
  readonly currentPage?: number;
}

export interface Opds2Feed {
  readonly metadata: FeedMetadata;
  readonly links: readonly Opds2Link[];
  readonly navigation?: readonly Opds2Link[];
  readonly publications?: readonly Opds2Publication[];
  readonly facets?: readonly { readonly metadata: FeedMetadata; readonly links: readonly Opds2Link[] }[];
}

export interface FeedHead {
  readonly title: string;
  readonly address: FeedAddress;
  /** The OPDS 1.2 feed with the same content. */
  readonly twin: { readonly href: string; readonly type: string };
}

/** The sort orders offered as facets, in the REST API's `sort` form. */
export const SORT_FACETS: readonly { readonly title: string; readonly sort: string }[] = [
  { title: 'Title', sort: 'title' },
  { title: 'Author', sort: 'author' },
  { title: 'Recently added', sort: '-added' },
  { title: 'Publication date', sort: '-published' },
];

export const sortParam = (sort: BookSort) => `${sort.descending ? '-' : ''}${sort.field}`;

const pagingMetadata = (page: Page<unknown>) => ({ numberOfItems: page.total, itemsPerPage: page.pageSize, currentPage: page.page });

function head(feed: FeedHead, page: Page<unknown> | null): Pick<Opds2Feed, 'metadata' | 'links'> {
  const self = hrefOf(feed.address, page?.page);
  return {
    metadata: { title: feed.title, ...(page && pagingMetadata(page)) },
    links: [...catalogLinks(self, feed.twin), ...(page ? pagingLinks(feed.address, page) : [])],
  };
}

/**
 * What an empty collection shows instead: OPDS 2.0 (feed.schema.json) wants at least one publication or
 * navigation link in a feed, so a search with no hits, an empty shelf or a library without shelves is
 * one navigation link onward, titled to say there is nothing here.
 */
export interface EmptyCollection {
  readonly title: string;
  readonly href: string;
}

const NOTHING_HERE: EmptyCollection = { title: 'Nothing here yet: back to the catalog', href: V2 };
const onward = (empty: EmptyCollection): Opds2Link[] => [{ href: empty.href, type: OPDS2_TYPES.feed, title: empty.title }];

export function navigationFeed(feed: FeedHead, items: readonly Opds2Link[], page: Page<unknown> | null, empty = NOTHING_HERE): Opds2Feed {
  return { ...head(feed, page), navigation: items.length > 0 ? items : onward(empty) };
}

/**
 * A page of publications (an empty page: the `empty` link instead). With `sorted`, a "Sort by" facet
 * group links the same feed in each order (the current one marked `rel: self`), keeping the other query
 * parameters and starting at page 1.
 */
export function publicationsFeed(feed: FeedHead, page: Page<Book>, sorted?: BookSort, empty = NOTHING_HERE): Opds2Feed {
  const current = sorted && sortParam(sorted);
  const facets = sorted && [
    {
      metadata: { title: 'Sort by' },
      links: SORT_FACETS.map((facet) => ({
        ...(facet.sort === current && { rel: 'self' }),
        href: hrefOf({ path: feed.address.path, params: { ...feed.address.params, sort: facet.sort } }),
        type: OPDS2_TYPES.feed,
        title: facet.title,
      })),
    },
  ];
  const content = page.items.length > 0 ? { publications: page.items.map(publication) } : { navigation: onward(empty) };
  return { ...head(feed, page), ...(facets && { facets }), ...content };
}

export function shelfLink(shelf: Shelf): Opds2Link {
  return {
    rel: 'subsection',
    href: `${V2}/shelves/${encodeURIComponent(shelf.id)}`,
    type: OPDS2_TYPES.feed,
    title: shelf.name,
    properties: { numberOfItems: shelf.bookCount },
  };
}
