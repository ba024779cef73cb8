import { links } from './link.schema.js';

/** The Authentication Document (Authentication for OPDS 1.0, sections 2.3 and 3). */
export const authenticationSchema = {
  $id: 'https://stacks.test/opds2/authentication.schema.json',
  type: 'object',
  required: ['authentication', 'title', 'id'],
  properties: {
    id: { $comment: '2.3.1: unique identifier and canonical location of the document, a URL', type: 'string', format: 'uri', pattern: '^https?://' },
    title: { $comment: '2.3.1: title of the catalog', type: 'string', minLength: 1 },
    description: { $comment: '2.3.1: optional text shown to the user', type: 'string' },
    links: { ...links, $comment: '2.3.2: links, no two alike', uniqueItems: true },
    authentication: {
      $comment: '3.1: at least one Authentication Object, each with a type URI',
      type: 'array',
      minItems: 1,
      uniqueItems: true,
      items: {
        type: 'object',
        required: ['type'],
        properties: {
          type: { type: 'string', format: 'uri' },
          links: { ...links, uniqueItems: true },
          labels: {
            $comment: '3.1.1: alternate labels, strings, for login and password',
            type: 'object',
            properties: { login: { type: 'string', minLength: 1 }, password: { type: 'string', minLength: 1 } },
            additionalProperties: false,
          },
        },
      },
    },
  },
} as const;
