import { links, linksContaining } from './link.schema.js';

const LINK = { $ref: 'https://stacks.test/opds2/link.schema.json' };

/** Feed metadata (OPDS 2.0 "Pagination", feed-metadata.schema.json): a title, and counts that are whole numbers. */
const feedMetadata = {
  type: 'object',
  required: ['title'],
  properties: {
    title: { type: 'string', minLength: 1 },
    numberOfItems: { $comment: 'OPDS 2.0 "Pagination": total number of items, >= 0', type: 'integer', minimum: 0 },
    itemsPerPage: { $comment: 'OPDS 2.0 "Pagination": items on a page, > 0', type: 'integer', exclusiveMinimum: 0 },
    currentPage: { $comment: 'OPDS 2.0 "Pagination": the current page, > 0', type: 'integer', exclusiveMinimum: 0 },
  },
  additionalProperties: false,
} as const;

const navigation = {
  $comment: 'OPDS 2.0 "Navigation": each Link Object must contain a title',
  type: 'array',
  items: { allOf: [LINK, { type: 'object', required: ['title'] }] },
} as const;

const publications = { type: 'array', items: { $ref: 'https://stacks.test/opds2/publication.schema.json' } } as const;

export const feedSchema = {
  $id: 'https://stacks.test/opds2/feed.schema.json',
  type: 'object',
  required: ['metadata', 'links'],
  properties: {
    metadata: feedMetadata,
    links: linksContaining('self', 'OPDS 2.0 feed.schema.json: a feed must contain a self link'),
    navigation,
    publications,
    facets: {
      $comment: 'OPDS 2.0 "Facets": groups of links, each with metadata (a title) and links',
      type: 'array',
      items: {
        type: 'object',
        required: ['metadata', 'links'],
        properties: { metadata: feedMetadata, links: { ...links, minItems: 1 } },
        additionalProperties: false,
      },
    },
    groups: {
      $comment: 'OPDS 2.0 "Groups": a title, and a single navigation or a single publications collection',
      type: 'array',
      items: {
        type: 'object',
        required: ['metadata'],
        properties: { metadata: feedMetadata, links, navigation, publications },
        oneOf: [{ required: ['navigation'] }, { required: ['publications'] }],
      },
    },
  },
  additionalProperties: false,
  $comment: 'OPDS 2.0 "Collection Roles": a feed contains at least a navigation, publications or groups collection',
  anyOf: [{ required: ['navigation'] }, { required: ['publications'] }, { required: ['groups'] }],
} as const;
