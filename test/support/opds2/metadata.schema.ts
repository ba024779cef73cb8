/**
 * Publication metadata, written here from the Readium Web Publication Manifest ("Metadata",
 * "Contributors", "Subjects", "Collections & Series") that OPDS 2.0 publications use.
 */

/** RFC 5646 language tag (WebPub "Metadata": language must be a valid BCP 47 tag). */
export const BCP47 =
  '^(([A-Za-z]{2,3}(-[A-Za-z]{3}){0,3}|[A-Za-z]{4,8})(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?(-([A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*(-[0-9A-WY-Za-wy-z](-[A-Za-z0-9]{2,8})+)*(-x(-[A-Za-z0-9]{1,8})+)?|x(-[A-Za-z0-9]{1,8})+)$';

const name = { type: 'string', minLength: 1 };
const contributor = {
  $comment: 'WebPub "Contributors": a string, a Contributor Object (name required) or an array of either',
  anyOf: [
    name,
    { $ref: '#/$defs/contributorObject' },
    { type: 'array', minItems: 1, items: { anyOf: [name, { $ref: '#/$defs/contributorObject' }] } },
  ],
};

export const metadataSchema = {
  $id: 'https://stacks.test/opds2/metadata.schema.json',
  type: 'object',
  required: ['title'],
  properties: {
    '@type': { $comment: 'WebPub "Metadata": a URI (schema.org type)', type: 'string', format: 'uri' },
    identifier: { $comment: 'WebPub "Metadata": a URI (urn:isbn:, urn:uuid:, ...)', type: 'string', format: 'uri' },
    title: { $comment: 'WebPub "Metadata": required; a string or a language map', type: 'string', minLength: 1 },
    author: contributor,
    publisher: contributor,
    language: {
      $comment: 'WebPub "Metadata": BCP 47, one tag or an array',
      anyOf: [{ type: 'string', pattern: BCP47 }, { type: 'array', items: { type: 'string', pattern: BCP47 } }],
    },
    modified: { $comment: 'WebPub "Metadata": ISO 8601 date-time', type: 'string', format: 'date-time' },
    published: { $comment: 'WebPub "Metadata": ISO 8601 date or date-time', type: 'string', anyOf: [{ type: 'string', format: 'date' }, { type: 'string', format: 'date-time' }] },
    description: { type: 'string' },
    subject: {
      $comment: 'WebPub "Subjects": a string, a Subject Object (name required) or an array of either',
      anyOf: [name, { $ref: '#/$defs/subjectObject' }, { type: 'array', items: { anyOf: [name, { $ref: '#/$defs/subjectObject' }] } }],
    },
    belongsTo: {
      $comment: 'WebPub "Collections & Series": belongsTo.series and belongsTo.collection are contributors; position is a number',
      type: 'object',
      properties: { series: contributor, collection: contributor },
      additionalProperties: false,
      minProperties: 1,
    },
  },
  additionalProperties: false,
  $defs: {
    contributorObject: {
      type: 'object',
      required: ['name'],
      properties: { name, identifier: { type: 'string', format: 'uri' }, sortAs: { type: 'string' }, position: { type: 'number' } },
      additionalProperties: false,
    },
    subjectObject: {
      type: 'object',
      required: ['name'],
      properties: { name, code: { type: 'string' }, scheme: { type: 'string', format: 'uri' } },
      additionalProperties: false,
    },
  },
} as const;
