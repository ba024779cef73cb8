import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { XMLParser, XMLValidator } from 'fast-xml-parser';

/**
 * A strict check of OPDS 1.2 catalog documents, written for the tests because no Atom RELAX NG or
 * XSD is available offline: well-formed XML (fast-xml-parser's validator), then a JSON Schema of the
 * RFC 4287 elements Stacks emits (required id/title/updated/link, RFC 3339 dates, IRIs, no unknown
 * elements or attributes), then the rules a schema cannot state (RFC 4287 4.1.1.1 and 4.1.1, OPDS
 * 1.2 sections 5 and 6: acquisition/image links and catalog media types).
 */
const ATOM = 'http://www.w3.org/2005/Atom';
export const OPDS_NAVIGATION = 'application/atom+xml;profile=opds-catalog;kind=navigation';
export const OPDS_ACQUISITION = 'application/atom+xml;profile=opds-catalog;kind=acquisition';
const MEDIA_TYPE = /^[\w.+-]+\/[\w.+-]+( ?; ?[\w.+-]+=[^;]+)*$/;

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  processEntities: true,
  isArray: (name) => ['entry', 'link', 'author', 'category'].includes(name),
});

const text = { type: 'string', minLength: 1 };
const textConstruct = { type: 'object', required: ['#text', '@_type'], properties: { '#text': text, '@_type': { const: 'text' } }, additionalProperties: false };
const link = {
  type: 'object',
  required: ['@_rel', '@_href', '@_type'],
  properties: {
    '@_rel': text,
    '@_href': { type: 'string', minLength: 1 },
    '@_type': { type: 'string', pattern: MEDIA_TYPE.source },
    '@_length': { type: 'string', pattern: '^[0-9]+$' },
    '@_title': text,
  },
  additionalProperties: false,
};
const person = { type: 'object', required: ['name'], properties: { name: text }, additionalProperties: false };
const namespaces = {
  '@_xmlns': { const: ATOM },
  '@_xmlns:dc': { const: 'http://purl.org/dc/terms/' },
  '@_xmlns:opds': { const: 'http://opds-spec.org/2010/catalog' },
  '@_xmlns:opensearch': { const: 'http://a9.com/-/spec/opensearch/1.1/' },
};
const entry = {
  type: 'object',
  required: ['id', 'title', 'updated', 'link'],
  properties: {
    ...namespaces,
    id: { type: 'string', format: 'uri' },
    title: text,
    updated: { type: 'string', format: 'date-time' },
    published: { type: 'string', format: 'date-time' },
    author: { type: 'array', items: person },
    summary: textConstruct,
    content: textConstruct,
    category: { type: 'array', items: { type: 'object', required: ['@_term'], properties: { '@_term': text, '@_label': text }, additionalProperties: false } },
    'dc:language': { type: 'string', pattern: '^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$' },
    'dc:publisher': text,
    'dc:issued': { type: 'string', pattern: '^\\d{4}(-\\d{2}(-\\d{2})?)?$' },
    'dc:identifier': { type: 'string', format: 'uri' },
    link: { type: 'array', minItems: 1, items: link },
  },
  additionalProperties: false,
};
const count = { type: 'string', pattern: '^[0-9]+$' };
const feed = {
  type: 'object',
  required: ['@_xmlns', 'id', 'title', 'updated', 'author', 'link'],
  properties: {
    ...namespaces,
    id: { type: 'string', format: 'uri' },
    title: text,
    updated: { type: 'string', format: 'date-time' },
    author: { type: 'array', minItems: 1, items: person },
    link: { type: 'array', minItems: 1, items: link },
    entry: { type: 'array', items: entry },
    'opensearch:totalResults': count,
    'opensearch:itemsPerPage': count,
    'opensearch:startIndex': count,
  },
  additionalProperties: false,
};

const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats.default(ajv);
const checkFeed = ajv.compile(feed);
const checkHref = ajv.compile({ type: 'string', format: 'uri-reference' });
const checkEntry = ajv.compile({ ...entry, required: [...entry.required, '@_xmlns'] });

export type AtomLink = { '@_rel': string; '@_href': string; '@_type': string; '@_length'?: string; '@_title'?: string };
export type AtomEntry = { id: string; title: string; updated: string; link: AtomLink[]; author?: { name: string }[]; summary?: { '#text': string }; [k: string]: unknown };
export type AtomFeed = { id: string; title: string; link: AtomLink[]; entry?: AtomEntry[]; [k: string]: unknown };

function parse(xml: string): Record<string, unknown> {
  const wellFormed = XMLValidator.validate(xml);
  if (wellFormed !== true) throw new Error(`not well-formed: ${wellFormed.err.msg} (line ${wellFormed.err.line})`);
  return parser.parse(xml) as Record<string, unknown>;
}

/**
 * Every href is an IRI reference, except the OpenSearch URL template that catalogs (calibre, Komga,
 * KOReader's expectations) put on a `search` link: it is checked with `{searchTerms}` filled in.
 */
function hrefProblems(links: readonly AtomLink[]): string[] {
  return links.flatMap((l) => {
    const templated = l['@_rel'] === 'search' && l['@_type'].startsWith('application/atom+xml') && l['@_href'].includes('{searchTerms}');
    const href = templated ? l['@_href'].replace('{searchTerms}', 'terms') : l['@_href'];
    return checkHref(href) ? [] : [`link ${l['@_rel']}: href '${l['@_href']}' is not a URI reference`];
  });
}

function entryRules(e: AtomEntry, kind: 'navigation' | 'acquisition' | 'entry'): string[] {
  const problems = hrefProblems(e.link);
  const rels = e.link.map((l) => l['@_rel']);
  if (!('content' in e) && !rels.includes('alternate')) problems.push(`entry ${e.id}: neither content nor an alternate link (RFC 4287 4.1.1.1)`);
  for (const l of e.link) {
    if (l['@_rel'].startsWith('http://opds-spec.org/image') && !l['@_type'].startsWith('image/')) problems.push(`entry ${e.id}: image link of type ${l['@_type']}`);
  }
  if (kind === 'navigation' && !e.link.some((l) => l['@_type'].startsWith('application/atom+xml;profile=opds-catalog'))) {
    problems.push(`entry ${e.id}: a navigation entry must link to a catalog feed`);
  }
  if (kind !== 'navigation' && !rels.some((r) => r.startsWith('http://opds-spec.org/acquisition'))) {
    problems.push(`entry ${e.id}: no acquisition link (OPDS 1.2 5.2)`);
  }
  return problems;
}

/** Parses and checks a feed; returns it with the problems found (an empty list when valid). */
export function checkOpdsFeed(xml: string, kind: 'navigation' | 'acquisition'): { feed: AtomFeed; problems: string[] } {
  const doc = parse(xml);
  const root = doc['feed'] as AtomFeed | undefined;
  if (!root) return { feed: {} as AtomFeed, problems: ['the root element is not atom:feed'] };
  const problems = checkFeed(root) ? [] : (checkFeed.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
  if (problems.length > 0) return { feed: root, problems };
  problems.push(...hrefProblems(root.link));
  const self = root.link.find((l) => l['@_rel'] === 'self');
  if (!self) problems.push('feed: no self link (RFC 4287 4.2.7.2 SHOULD, OPDS 1.2 MUST)');
  else if (self['@_type'] !== (kind === 'navigation' ? OPDS_NAVIGATION : OPDS_ACQUISITION)) problems.push(`feed: self link of type ${self['@_type']}`);
  if (!root.link.some((l) => l['@_rel'] === 'start' && l['@_type'] === OPDS_NAVIGATION)) problems.push('feed: no start link to the root catalog');
  const entries = root.entry ?? [];
  const ids = entries.map((e) => e.id);
  if (new Set(ids).size !== ids.length) problems.push('feed: entries repeat an id');
  for (const e of entries) problems.push(...entryRules(e, kind));
  return { feed: root, problems };
}

/** Parses and checks a complete catalog entry document. */
export function checkOpdsEntry(xml: string): { entry: AtomEntry; problems: string[] } {
  const root = parse(xml)['entry'] as AtomEntry[] | undefined;
  const e = root?.[0];
  if (!e) return { entry: {} as AtomEntry, problems: ['the root element is not atom:entry'] };
  if (!checkEntry(e)) return { entry: e, problems: (checkEntry.errors ?? []).map((x) => `${x.instancePath || '/'} ${x.message}`) };
  return { entry: e, problems: entryRules(e, 'entry') };
}

/** The OpenSearch description's URL templates. */
export function openSearchUrls(xml: string): { type: string; template: string }[] {
  const doc = parse(xml)['OpenSearchDescription'] as { '@_xmlns': string; ShortName: string; Url: { '@_type': string; '@_template': string } | { '@_type': string; '@_template': string }[] };
  if (doc['@_xmlns'] !== 'http://a9.com/-/spec/opensearch/1.1/' || !doc.ShortName || doc.ShortName.length > 16) throw new Error('not an OpenSearch 1.1 description');
  return [doc.Url].flat().map((u) => ({ type: u['@_type'], template: u['@_template'] }));
}
