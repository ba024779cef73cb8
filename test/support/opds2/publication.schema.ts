import { links, linksContaining } from './link.schema.js';

/** An OPDS 2.0 publication (sections "Publications" and "The images role"). */
export const ACQUISITION_RELS = [
  'preview',
  'http://opds-spec.org/acquisition',
  'http://opds-spec.org/acquisition/buy',
  'http://opds-spec.org/acquisition/open-access',
  'http://opds-spec.org/acquisition/borrow',
  'http://opds-spec.org/acquisition/sample',
  'http://opds-spec.org/acquisition/subscribe',
];

const FEED_IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif'];

export const publicationSchema = {
  $id: 'https://stacks.test/opds2/publication.schema.json',
  type: 'object',
  required: ['metadata', 'links', 'images'],
  properties: {
    metadata: { $ref: 'https://stacks.test/opds2/metadata.schema.json' },
    links: {
      ...linksContaining('self', 'OPDS 2.0 "Publications": every publication must provide a self link'),
      allOf: [
        {
          $comment: 'OPDS 2.0 "Publications": a publication that is not an open Web Publication has at least one acquisition link',
          type: 'array',
          contains: {
            type: 'object',
            required: ['rel', 'type'],
            properties: { rel: { anyOf: [{ enum: ACQUISITION_RELS }, { type: 'array', contains: { enum: ACQUISITION_RELS } }] } },
          },
        },
      ],
    },
    images: {
      ...links,
      $comment: 'OPDS 2.0 "The images role": every publication in a feed has images, one at least in JPEG, PNG or GIF',
      minItems: 1,
      contains: { type: 'object', required: ['type'], properties: { type: { enum: FEED_IMAGE_TYPES } } },
    },
  },
  additionalProperties: false,
} as const;
