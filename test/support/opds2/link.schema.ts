/**
 * The Link Object, written here from the Readium Web Publication Manifest ("Link Object", whose
 * schema OPDS 2.0's link.schema.json extends) and OPDS 2.0 ("Facets": `properties.numberOfItems`).
 * Stricter than the spec on one point: Stacks emits only these keys, so any other one is reported
 * (a misspelt `templated` would otherwise pass unnoticed).
 */
export const MEDIA_TYPE = '^[A-Za-z0-9][\\w.+-]*/[A-Za-z0-9][\\w.+-]*( *; *[\\w.+-]+=("[^"]*"|[^;"]+))*$';

export const linkSchema = {
  $id: 'https://stacks.test/opds2/link.schema.json',
  type: 'object',
  required: ['href'],
  properties: {
    href: { $comment: 'WebPub "Link Object": URI or URI template of the linked resource (required)', type: 'string', minLength: 1 },
    type: { $comment: 'WebPub "Link Object": media type of the linked resource', type: 'string', pattern: MEDIA_TYPE },
    title: { type: 'string', minLength: 1 },
    rel: {
      $comment: 'WebPub "Link Object": one or more link relations',
      anyOf: [{ type: 'string', minLength: 1 }, { type: 'array', minItems: 1, items: { type: 'string', minLength: 1 } }],
    },
    templated: { $comment: 'WebPub "Link Object": true when href is a URI template', type: 'boolean' },
    width: { $comment: 'WebPub "Link Object": pixels, > 0', type: 'integer', exclusiveMinimum: 0 },
    height: { $comment: 'WebPub "Link Object": pixels, > 0', type: 'integer', exclusiveMinimum: 0 },
    properties: {
      type: 'object',
      properties: { numberOfItems: { $comment: 'OPDS 2.0 "Facets", properties.schema.json: integer >= 0', type: 'integer', minimum: 0 } },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
  $comment: 'WebPub link.schema.json: href is an RFC 3986 URI reference unless templated is true, then an RFC 6570 URI template',
  if: { properties: { templated: { const: true } }, required: ['templated'] },
  then: { properties: { href: { type: 'string', format: 'uri-template' } } },
  else: { properties: { href: { type: 'string', format: 'uri-reference' } } },
} as const;

const LINKS = 'https://stacks.test/opds2/link.schema.json';

/** A `links` array that must contain a link of relation `rel` (string or array form). */
export function linksContaining(rel: string, why: string) {
  return {
    type: 'array',
    items: { $ref: LINKS },
    contains: {
      $comment: why,
      type: 'object',
      required: ['rel'],
      properties: { rel: { anyOf: [{ const: rel }, { type: 'array', contains: { const: rel } }] } },
    },
  } as const;
}

export const links = { type: 'array', items: { $ref: LINKS } } as const;
