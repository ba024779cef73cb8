import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

/**
 * Checks OPDS 2.0 documents against the official JSON Schemas pinned in ./schema (OPDS 2.0 from
 * opds-community/specs, link properties and Authentication for OPDS from opds-community/drafts, the
 * Readium Web Publication Manifest they build on; see schema/SOURCES.md), then the rules of those
 * texts a schema cannot state.
 */
export const OPDS2_FEED = 'application/opds+json';
export const OPDS2_PUBLICATION = 'application/opds-publication+json';
export const OPDS_AUTHENTICATION = 'application/opds-authentication+json';

const SCHEMA_DIR = fileURLToPath(new URL('./schema/', import.meta.url));
const schemaFiles = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? schemaFiles(path) : name.endsWith('.schema.json') ? [path] : [];
  });

const ajv = new Ajv({ allErrors: true, strict: false });
addFormats.default(ajv);
for (const file of schemaFiles(SCHEMA_DIR)) ajv.addSchema(JSON.parse(readFileSync(file, 'utf8')) as object);
const schema = (id: string) => ajv.getSchema(id) as ValidateFunction;
const validators = {
  feed: schema('https://specs.opds.io/schema/feed.schema.json'),
  publication: schema('https://specs.opds.io/schema/publication.schema.json'),
  authentication: schema('https://drafts.opds.io/schema/authentication.schema.json'),
};

type Json = Record<string, unknown>;
type Link = { href: string; rel?: string | string[]; type?: string; templated?: boolean };
const rels = (l: Link) => [l.rel ?? []].flat();

function schemaProblems(kind: keyof typeof validators, doc: unknown): string[] {
  const validate = validators[kind];
  return validate(doc) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`);
}

/** OPDS 2.0 "Search": a search link is a URI template with at least the `query` parameter. */
function searchProblems(links: readonly Link[]): string[] {
  return links
    .filter((l) => rels(l).includes('search'))
    .flatMap((l) => (l.templated === true && /\{\?([^}]*,)?query(,[^}]*)?\}/.test(l.href) ? [] : [`search link '${l.href}' is not a template with {?query}`]));
}

function publicationProblems(pub: Json): string[] {
  const images = (pub['images'] ?? []) as Link[];
  return images.filter((i) => !i.type?.startsWith('image/')).map((i) => `image '${i.href}' is not of an image type`);
}

/** Parses and checks a feed: the schema, then search, paging and image rules. */
export function checkOpds2Feed(body: string): { feed: Json; problems: string[] } {
  const feed = JSON.parse(body) as Json;
  const problems = schemaProblems('feed', feed);
  if (problems.length > 0) return { feed, problems };
  const links = feed['links'] as Link[];
  const self = links.find((l) => rels(l).includes('self'));
  if (self?.type !== OPDS2_FEED) problems.push(`self link of type ${self?.type}`);
  problems.push(...searchProblems(links));
  for (const l of links.filter((x) => rels(x).some((r) => ['first', 'previous', 'next', 'last'].includes(r)))) {
    if (l.type !== OPDS2_FEED) problems.push(`paging link '${l.href}' of type ${l.type}`);
  }
  const publications = (feed['publications'] ?? []) as Json[];
  const ids = publications.map((p) => (p['metadata'] as Json)['identifier']);
  if (new Set(ids).size !== ids.length) problems.push('publications repeat an identifier');
  problems.push(...publications.flatMap(publicationProblems));
  return { feed, problems };
}

/** Parses and checks a single publication document. */
export function checkOpds2Publication(body: string): { publication: Json; problems: string[] } {
  const publication = JSON.parse(body) as Json;
  const problems = schemaProblems('publication', publication);
  return { publication, problems: problems.length > 0 ? problems : publicationProblems(publication) };
}

/** Parses and checks an Authentication Document; Basic auth must be one of its flows (section 3.3). */
export function checkAuthenticationDocument(body: string): { document: Json; problems: string[] } {
  const document = JSON.parse(body) as Json;
  const problems = schemaProblems('authentication', document);
  const flows = (document['authentication'] ?? []) as { type: string }[];
  if (problems.length === 0 && !flows.some((f) => f.type === 'http://opds-spec.org/auth/basic')) problems.push('no http://opds-spec.org/auth/basic flow');
  return { document, problems };
}
