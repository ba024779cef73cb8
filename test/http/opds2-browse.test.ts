import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BookRepository } from '../../src/application/ports.js';
import { PORTS } from '../../src/bootstrap/tokens.js';
import { aBook, instant } from '../support/builders.js';
import { clientHrefs, fetchFeed, hrefs, opds } from '../support/opds2/catalog.js';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';

let t: TestApp;
let alice: Session;
let bob: Session;
let books: BookRepository;
beforeEach(async () => {
  t = await startTestApp();
  await registerUser(t.app, 'admin');
  alice = await registerUser(t.app, 'alice');
  bob = await registerUser(t.app, 'bob');
  books = t.container.di.resolve<BookRepository>(PORTS.BookRepository);
});
afterEach(() => t.close());

const titles = (feed: { Publications: { Metadata: { Title: unknown } }[] }) => (feed.Publications ?? []).map((p) => p.Metadata.Title);

describe('OPDS 2.0 paging (REST page sizes)', () => {
  beforeEach(async () => {
    for (let i = 0; i < 45; i++) await books.create(aBook({ title: `Paged ${String(i).padStart(2, '0')}`, createdAt: instant(1000 + i) }));
  });

  it('pages by 20 with first/next/last on page 1, previous/first/last on the last page, and counts r2-opds-js reads', async () => {
    const first = await fetchFeed(t.app, '/opds/v2/books');
    expect([first.client.Metadata.NumberOfItems, first.client.Metadata.ItemsPerPage, first.client.Metadata.CurrentPage]).toEqual([45, 20, 1]);
    expect(first.client.Publications).toHaveLength(20);
    expect(['first', 'previous', 'next', 'last'].map((rel) => clientHrefs(first.client.Links, rel))).toEqual([
      ['/opds/v2/books'], [], ['/opds/v2/books?page=2'], ['/opds/v2/books?page=3'],
    ]);
    const last = await fetchFeed(t.app, '/opds/v2/books?page=3');
    expect(titles(last.client)).toEqual(['Paged 40', 'Paged 41', 'Paged 42', 'Paged 43', 'Paged 44']);
    expect(['self', 'first', 'previous', 'next', 'last'].map((rel) => hrefs(last.json.links, rel))).toEqual([
      ['/opds/v2/books?page=3'], ['/opds/v2/books'], ['/opds/v2/books?page=2'], [], ['/opds/v2/books?page=3'],
    ]);
  });

  it('takes page_size 1..100 and keeps it in every link; one page has no previous/next; past the end has no publications', async () => {
    const all = await fetchFeed(t.app, '/opds/v2/recent?page_size=100');
    expect(all.client.Publications).toHaveLength(45);
    expect(titles(all.client)[0]).toBe('Paged 44');
    expect(['first', 'previous', 'next', 'last'].map((rel) => hrefs(all.json.links, rel))).toEqual([['/opds/v2/recent?page_size=100'], [], [], ['/opds/v2/recent?page_size=100']]);
    const small = await fetchFeed(t.app, '/opds/v2/books?page_size=7&page=2');
    expect(hrefs(small.json.links, 'next')).toEqual(['/opds/v2/books?page_size=7&page=3']);
    expect(hrefs(small.json.links, 'last')).toEqual(['/opds/v2/books?page_size=7&page=7']);
    expect(small.json.facets?.[0]?.links.map((l) => l.href)[1]).toBe('/opds/v2/books?sort=author&page_size=7');
    const beyond = await fetchFeed(t.app, '/opds/v2/books?page=9');
    expect([beyond.json.publications, beyond.json.navigation?.map((l) => l.href)]).toEqual([undefined, ['/opds/v2']]);
    expect([hrefs(beyond.json.links, 'previous'), hrefs(beyond.json.links, 'next')]).toEqual([['/opds/v2/books?page=3'], []]);
    for (const bad of ['page=0', 'page=-1', 'page=two', 'page_size=0', 'page_size=101', 'page_size=1.5', 'sort=size', 'sort=--title']) {
      expect((await opds(t.app, `/opds/v2/books?${bad}`)).status, bad).toBe(422);
    }
  });

  it('a search without hits has no publications (OPDS 2.0 wants at least one) but a link onward, and no paging links', async () => {
    const { json } = await fetchFeed(t.app, '/opds/v2/search?query=no%20such%20thing');
    expect([json.publications, json.metadata.numberOfItems]).toEqual([undefined, 0]);
    expect(json.navigation).toEqual([{ href: '/opds/v2/books', type: 'application/opds+json', title: 'No books match “no such thing”: browse all books' }]);
    expect(json.links.filter((l) => ['first', 'previous', 'next', 'last'].includes(l.rel as string))).toEqual([]);
  });
});

describe('OPDS 2.0 sort facets and search', () => {
  beforeEach(async () => {
    await books.create(aBook({ title: 'Dune', authors: ['Frank Herbert'], published: '1965-08-01', createdAt: instant(1) }));
    await books.create(aBook({ title: 'Emma', authors: ['Jane Austen'], tags: ['romance'], published: '1815', createdAt: instant(3) }));
    await books.create(aBook({ title: 'Beloved', authors: ['Toni Morrison'], published: '1987-09', createdAt: instant(2) }));
  });

  it('offers title, author, added and published orders as one facet group, the current one marked self', async () => {
    const { client } = await fetchFeed(t.app, '/opds/v2/books');
    expect(titles(client)).toEqual(['Beloved', 'Dune', 'Emma']);
    expect(client.Facets.map((f) => f.Metadata.Title)).toEqual(['Sort by']);
    const facets = client.Facets[0]!.Links;
    expect(facets.map((l) => [l.Title, l.Href, l.TypeLink, l.Rel ?? []])).toEqual([
      ['Title', '/opds/v2/books?sort=title', 'application/opds+json', ['self']],
      ['Author', '/opds/v2/books?sort=author', 'application/opds+json', []],
      ['Recently added', '/opds/v2/books?sort=-added', 'application/opds+json', []],
      ['Publication date', '/opds/v2/books?sort=-published', 'application/opds+json', []],
    ]);
    const byAuthor = await fetchFeed(t.app, facets[1]!.Href);
    const rest = await request(t.app).get('/api/books?sort=author').set(bearer(alice.token));
    expect(titles(byAuthor.client)).toEqual(rest.body.items.map((b: { title: string }) => b.title));
    expect(titles(byAuthor.client)).toEqual(['Dune', 'Emma', 'Beloved']);
    expect(byAuthor.client.Facets[0]!.Links.filter((l) => l.HasRel('self')).map((l) => l.Title)).toEqual(['Author']);
    expect(titles((await fetchFeed(t.app, facets[2]!.Href)).client)).toEqual(['Emma', 'Beloved', 'Dune']);
  });

  it('expands the {?query} template into a search by title, author or tag, facets keeping the query', async () => {
    const template = (await fetchFeed(t.app, '/opds/v2')).client.Links.find((l) => l.HasRel('search'))!.Href;
    const expand = (query: string) => template.replace('{?query}', `?query=${encodeURIComponent(query)}`);
    const found = await fetchFeed(t.app, expand('herb'));
    expect(titles(found.client)).toEqual(['Dune']);
    expect([found.client.Metadata.Title, clientHrefs(found.client.Links, 'self')]).toEqual(['Search: herb', ['/opds/v2/search?query=herb']]);
    expect(found.client.Facets[0]!.Links.map((l) => l.Href)[3]).toBe('/opds/v2/search?query=herb&sort=-published');
    expect(titles((await fetchFeed(t.app, expand('ROMANCE'))).client)).toEqual(['Emma']);
    expect(titles((await fetchFeed(t.app, `${expand('e')}&sort=-title`)).client)).toEqual(['Emma', 'Dune', 'Beloved']);
    for (const bad of ['/opds/v2/search', '/opds/v2/search?query=%20', `/opds/v2/search?query=${'x'.repeat(201)}`]) expect((await opds(t.app, bad)).status).toBe(422);
  });
});

describe('OPDS 2.0 shelves (the REST visibility rules)', () => {
  it('lists own and public shelves, never private ones of others; a shelf feed keeps shelf order', async () => {
    const [b1, b2] = [aBook({ title: 'First' }), aBook({ title: 'Second' })];
    await books.create(b1);
    await books.create(b2);
    const shelf = (s: Session, body: object) => request(t.app).post('/api/shelves').set(bearer(s.token)).send(body).expect(201).then((r) => r.body.id as string);
    const secret = await shelf(alice, { name: 'Secret', book_ids: [b1.id] });
    const shared = await shelf(alice, { name: 'Shared', is_public: true, book_ids: [b2.id, b1.id] });
    const bobs = await shelf(bob, { name: 'Bob private' });

    const aliceShelves = await fetchFeed(t.app, '/opds/v2/shelves', 'alice');
    expect(aliceShelves.client.Navigation.map((l) => [l.Title, l.Href, l.Rel, l.Properties?.NumberOfItems])).toEqual([
      ['Secret', `/opds/v2/shelves/${secret}`, ['subsection'], 1],
      ['Shared', `/opds/v2/shelves/${shared}`, ['subsection'], 2],
    ]);
    const bobShelves = await fetchFeed(t.app, '/opds/v2/shelves', 'bob');
    expect(bobShelves.client.Navigation.map((l) => l.Title)).toEqual(['Bob private', 'Shared']);
    expect(JSON.stringify(bobShelves.json)).not.toContain(secret);
    expect(bobShelves.client.Metadata.NumberOfItems).toBe(2);

    const sharedFeed = await fetchFeed(t.app, `/opds/v2/shelves/${shared}`, 'bob');
    expect([sharedFeed.client.Metadata.Title, titles(sharedFeed.client), sharedFeed.client.Facets]).toEqual(['Shared', ['Second', 'First'], undefined]);
    const hidden = await opds(t.app, `/opds/v2/shelves/${secret}`, 'bob');
    expect([hidden.status, hidden.body.code]).toEqual([404, 'shelf_not_found']);
    expect((await opds(t.app, `/opds/v2/shelves/${bobs}`, 'alice')).status).toBe(404);
    expect((await opds(t.app, `/opds/v2/shelves/${'x'.repeat(65)}`, 'alice')).status).toBe(404);
  });
});
