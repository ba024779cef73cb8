import { MEDIA_TYPES, type Book } from '../../domain/book.js';
import { OPDS_TYPES, ROOT } from './opds-feeds.js';
import { OPDS2_RELS, OPDS2_TYPES, V2, type Opds2Link } from './opds2-links.js';
import { PLACEHOLDER_COVER } from './placeholder-cover.js';

/** An OPDS 2.0 publication: Readium Web Publication Manifest metadata, links and images. */
export interface Opds2Publication {
  readonly metadata: {
    readonly '@type': string;
    readonly identifier: string;
    readonly title: string;
    readonly author?: readonly { readonly name: string }[];
    readonly language?: string;
    readonly modified: string;
    readonly published?: string;
    readonly publisher?: string;
    readonly description?: string;
    readonly subject?: readonly { readonly name: string }[];
    readonly belongsTo?: { readonly series: readonly { readonly name: string; readonly position?: number }[] };
  };
  readonly links: readonly Opds2Link[];
  readonly images: readonly Opds2Link[];
}

export const PLACEHOLDER_COVER_PATH = `${V2}/covers/placeholder.png`;
const FEED_IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif'];
const FULL_DATE = /^\d{4}-\d{2}-\d{2}$/;

export const publicationHref = (id: string) => `${V2}/books/${encodeURIComponent(id)}`;

/** `urn:isbn:` when the book has an ISBN, else the same `urn:stacks:book:` id the OPDS 1.2 entry carries. */
export function publicationIdentifier(book: Book): string {
  return book.isbn ? `urn:isbn:${book.isbn}` : `urn:stacks:book:${book.id}`;
}

/**
 * The cover, and the placeholder when the book has none or only a format a feed may not rely on
 * (OPDS 2.0 "The images role": at least one JPEG, PNG or GIF).
 */
function images(book: Book, base: string): Opds2Link[] {
  const cover: Opds2Link[] = book.coverMediaType ? [{ rel: OPDS2_RELS.image, href: `${base}/cover`, type: book.coverMediaType }] : [];
  if (book.coverMediaType && FEED_IMAGE_TYPES.includes(book.coverMediaType)) return cover;
  const { width, height, mediaType } = PLACEHOLDER_COVER;
  return [...cover, { rel: OPDS2_RELS.image, href: PLACEHOLDER_COVER_PATH, type: mediaType, width, height }];
}

export function publication(book: Book): Opds2Publication {
  const base = `${ROOT}/books/${encodeURIComponent(book.id)}`;
  return {
    metadata: {
      '@type': 'http://schema.org/Book',
      identifier: publicationIdentifier(book),
      title: book.title,
      ...(book.authors.length > 0 && { author: book.authors.map((name) => ({ name })) }),
      ...(book.language && { language: book.language }),
      modified: book.updatedAt.toISOString(),
      ...(book.published && FULL_DATE.test(book.published) && { published: book.published }),
      ...(book.publisher && { publisher: book.publisher }),
      ...(book.description && { description: book.description }),
      ...(book.tags.length > 0 && { subject: book.tags.map((name) => ({ name })) }),
      ...(book.series && { belongsTo: { series: [{ name: book.series, ...(book.seriesIndex !== null && { position: book.seriesIndex }) }] } }),
    },
    links: [
      { rel: 'self', href: publicationHref(book.id), type: OPDS2_TYPES.publication },
      { rel: OPDS2_RELS.acquisition, href: `${base}/file`, type: MEDIA_TYPES[book.format], title: book.fileName },
      { rel: 'alternate', href: base, type: OPDS_TYPES.entry },
    ],
    images: images(book, base),
  };
}
