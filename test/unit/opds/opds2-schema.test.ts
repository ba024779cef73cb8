import { describe, expect, it } from 'vitest';
import { authenticationDocument } from '../../../src/adapters/opds/opds2-authentication.js';
import { navigationFeed, publicationsFeed } from '../../../src/adapters/opds/opds2-feeds.js';
import { pageOf } from '../../../src/domain/page.js';
import { aBook } from '../../support/builders.js';
import { checkAuthenticationDocument, checkOpds2Feed, checkOpds2Publication } from '../../support/opds2/opds2-validator.js';
import { readFeed } from '../../support/opds2/readium-client.js';

type Doc = Record<string, any>;
const head = { title: 'Books', address: { path: '/opds/v2/books' }, twin: { href: '/opds/books', type: 'application/atom+xml;profile=opds-catalog;kind=acquisition' } };
const books = () => publicationsFeed(head, pageOf([aBook({ coverMediaType: 'image/jpeg', series: 'S', seriesIndex: 2 })], 30, { page: 2, pageSize: 10 }), { field: 'title', descending: false });
const nav = () => navigationFeed({ ...head, title: 'Root' }, [{ rel: 'subsection', href: '/opds/v2/books', type: 'application/opds+json', title: 'All' }], null);
const problemsOf = (doc: Doc, check: (body: string) => { problems: string[] } = checkOpds2Feed) => check(JSON.stringify(doc)).problems.join('\n');
const edited = (doc: Doc, edit: (d: Doc) => void): Doc => {
  const copy = structuredClone(doc);
  edit(copy);
  return copy;
};

describe('the official OPDS 2.0 schemas (pinned in test/support/opds2/schema) used by the HTTP tests', () => {
  it('accept what the feed writer produces, which r2-opds-js reads without complaint', () => {
    for (const feed of [books(), nav()]) {
      expect(problemsOf(feed)).toBe('');
      expect(readFeed(JSON.stringify(feed)).complaints).toEqual([]);
    }
    expect(checkOpds2Publication(JSON.stringify(books().publications?.[0])).problems).toEqual([]);
    expect(checkAuthenticationDocument(JSON.stringify(authenticationDocument('https://books.example'))).problems).toEqual([]);
  });

  it('report what r2-opds-js itself complains about', () => {
    expect(readFeed('{"metadata":{"title":"x"}}').complaints).toEqual(['OPDS2Feed.Links is not set!', 'One of OPDS2Feed.Publications|Navigation|Groups|Catalogs must be set!']);
  });

  it('reject feeds that break the OPDS 2.0 rules', () => {
    const broken: Array<[Doc, RegExp]> = [
      [edited(books(), (d) => delete d.publications), /must match a schema in anyOf/],
      [edited(books(), (d) => (d.links = d.links.filter((l: Doc) => l.rel !== 'self'))), /\/links must contain at least 1 valid item/],
      [edited(nav(), (d) => delete d.navigation[0].title), /\/navigation\/0 must have required property 'title'/],
      [edited(books(), (d) => delete d.metadata.title), /\/metadata must have required property 'title'/],
      [edited(books(), (d) => (d.metadata.itemsPerPage = 0)), /\/metadata\/itemsPerPage must be > 0/],
      [edited(books(), (d) => (d.metadata.currentPage = 1.5)), /\/metadata\/currentPage must be integer/],
      [edited(books(), (d) => (d.links.find((l: Doc) => l.rel === 'search').templated = false)), /\/links\/2\/href must match format "uri-reference"/],
      [edited(books(), (d) => (d.links.find((l: Doc) => l.rel === 'search').href = '/opds/v2/search{?q}')), /not a template with \{\?query\}/],
      [edited(books(), (d) => (d.links[0].href = '/opds/v2/a b')), /\/links\/0\/href must match format "uri-reference"/],
      [edited(books(), (d) => d.links.push(d.links[0])), /\/links must NOT have duplicate items/],
      [edited(books(), (d) => (d.publications = [])), /\/publications must NOT have fewer than 1 items/],
      [edited(nav(), (d) => (d.navigation = [])), /\/navigation must NOT have fewer than 1 items/],
      [edited(books(), (d) => (d.links.find((l: Doc) => l.rel === 'next').type = 'application/json')), /paging link .* of type application\/json/],
      [edited(books(), (d) => (d.publications[0].links[1].rel = 'related')), /\/publications\/0\/links must contain/],
      [edited(books(), (d) => (d.publications[0].metadata.language = 'en-a')), /\/metadata\/language must match pattern/],
      [edited(books(), (d) => (d.publications[0].metadata.modified = 'yesterday')), /\/metadata\/modified must match format "date-time"/],
      [edited(books(), (d) => (d.publications[0].metadata.identifier = 'no scheme')), /\/metadata\/identifier must match format "uri"/],
      [edited(books(), (d) => (d.publications[0].metadata.belongsTo.series[0].position = '2')), /position must be number/],
      [edited(books(), (d) => (d.publications[0].metadata.author = [{ nom: 'x' }])), /\/metadata\/author/],
      [edited(books(), (d) => (d.publications[1] = d.publications[0])), /\/publications must NOT have duplicate items/],
      [edited(books(), (d) => (d.publications[0].images[0].type = 'image/svg+xml')), /\/publications\/0\/images must contain at least 1 valid item/],
    ];
    const missed = broken.filter(([doc, problem]) => !problem.test(problemsOf(doc))).map(([doc, problem]) => `${problem} <- ${problemsOf(doc)}`);
    expect(missed).toEqual([]);
  });

  it('reject authentication documents that break Authentication for OPDS 1.0', () => {
    const valid = authenticationDocument('https://books.example') as unknown as Doc;
    const check = (doc: Doc) => problemsOf(doc, checkAuthenticationDocument);
    expect(check(edited(valid, (d) => delete d.id))).toMatch(/must have required property 'id'/);
    expect(check(edited(valid, (d) => (d.id = '/opds/v2/auth')))).toMatch(/\/id must match/);
    expect(check(edited(valid, (d) => (d.authentication = [])))).toMatch(/no http:\/\/opds-spec.org\/auth\/basic flow/);
    expect(check(edited(valid, (d) => delete d.authentication[0].type))).toMatch(/\/authentication\/0 must have required property 'type'/);
    expect(check(edited(valid, (d) => (d.authentication[0].type = 'http://opds-spec.org/auth/oauth/implicit')))).toMatch(/no http:\/\/opds-spec.org\/auth\/basic flow/);
    expect(check(edited(valid, (d) => (d.authentication[0].labels.login = 7)))).toMatch(/labels\/login must be string/);
  });
});
