import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BookRepository } from '../../src/application/ports.js';
import { PORTS } from '../../src/bootstrap/tokens.js';
import { aBook } from '../support/builders.js';
import { buildCbz, buildEpub, buildFb2, buildMobi, buildPdf } from '../support/fixtures/index.js';
import { clientHrefs, fetchFeed, fetchPublication, hrefs, opds, PASSWORD } from '../support/opds2/catalog.js';
import { checkAuthenticationDocument, OPDS_AUTHENTICATION } from '../support/opds2/opds2-validator.js';
import { readAuthenticationDocument } from '../support/opds2/readium-client.js';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';

const ACQUIRE = 'http://opds-spec.org/acquisition';
let t: TestApp;
let alice: Session;
beforeEach(async () => {
  t = await startTestApp({}, { loginPolicies: { account: { maxFailures: 3, windowMs: 60_000, blockMs: 60_000, maxBlockMs: 60_000 }, address: { maxFailures: 50, windowMs: 60_000, blockMs: 60_000, maxBlockMs: 60_000 } } });
  await registerUser(t.app, 'admin');
  alice = await registerUser(t.app, 'alice');
  await registerUser(t.app, 'bob');
});
afterEach(() => t.close());

const binary = (req: request.Test) => req.buffer(true).parse((res, done) => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => done(null, Buffer.concat(chunks)));
});

async function upload(file: Buffer, name: string): Promise<string> {
  const res = await request(t.app).post('/api/books').set(bearer(alice.token)).attach('file', file, name);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

describe('OPDS 2.0 authentication (Authentication for OPDS 1.0, HTTP Basic)', () => {
  it('serves the authentication document without credentials, valid and readable by r2-opds-js', async () => {
    const res = await request(t.app).get('/opds/v2/auth').set('Host', 'books.lan:8000');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(OPDS_AUTHENTICATION);
    expect(checkAuthenticationDocument(res.text).problems).toEqual([]);
    const { value: doc, complaints } = readAuthenticationDocument(res.text);
    expect(complaints).toEqual([]);
    expect([doc.Id, doc.Title]).toEqual(['http://books.lan:8000/opds/v2/auth', 'Stacks']);
    expect(doc.Authentication.map((a) => [a.Type, a.Labels.Login, a.Labels.Password])).toEqual([['http://opds-spec.org/auth/basic', 'Username', 'Password or API key']]);
  });

  it('answers 401 with the document, the Basic challenge and a Link header without, with wrong or with bearer credentials', async () => {
    const host = { Host: 'books.lan:8000' };
    const document = (await request(t.app).get('/opds/v2/auth').set(host)).text;
    for (const res of [
      await request(t.app).get('/opds/v2').set(host),
      await request(t.app).get('/opds/v2/books').set(host),
      await opds(t.app, '/opds/v2/recent', 'alice', 'wrong password').set(host),
      await opds(t.app, '/opds/v2/shelves', 'nobody').set(host),
      await request(t.app).get('/opds/v2').set(bearer(alice.token)).set(host),
    ]) {
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toBe(OPDS_AUTHENTICATION);
      expect(res.text).toBe(document);
      expect(res.headers['www-authenticate']).toBe('Basic realm="Stacks", charset="UTF-8"');
      expect(res.headers['link']).toBe('</opds/v2/auth>; rel="http://opds-spec.org/auth/document"; type="application/opds-authentication+json"');
    }
    const { json } = await fetchFeed(t.app, '/opds/v2');
    expect(json.links).toContainEqual({ rel: 'http://opds-spec.org/auth/document', href: '/opds/v2/auth', type: OPDS_AUTHENTICATION });
  });

  it('shares the login throttle with OPDS 1.2: failures on /opds/v2 block the account on /opds too', async () => {
    for (let i = 0; i < 3; i++) expect((await opds(t.app, '/opds/v2', 'alice', `wrong ${i}`)).status).toBe(401);
    const blocked = await opds(t.app, '/opds', 'alice', PASSWORD);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect((await opds(t.app, '/opds/v2', 'alice')).status).toBe(429);
    expect((await opds(t.app, '/opds/v2', 'bob')).status).toBe(200);
  });
});

describe('OPDS 2.0 navigation and twins', () => {
  it('serves a root navigation feed that r2-opds-js reads: recent, all books, shelves, search template and the 1.2 twin', async () => {
    const { json, client } = await fetchFeed(t.app, '/opds/v2');
    expect(client.Metadata.Title).toBe('Stacks');
    expect(client.Navigation.map((l) => [l.Title, l.Rel, l.Href, l.TypeLink])).toEqual([
      ['Recently added', ['http://opds-spec.org/sort/new'], '/opds/v2/recent', 'application/opds+json'],
      ['All books', ['subsection'], '/opds/v2/books', 'application/opds+json'],
      ['Shelves', ['subsection'], '/opds/v2/shelves', 'application/opds+json'],
    ]);
    const search = client.Links.find((l) => l.HasRel('search'));
    expect([search?.Href, search?.Templated, search?.TypeLink]).toEqual(['/opds/v2/search{?query}', true, 'application/opds+json']);
    expect(clientHrefs(client.Links, 'self')).toEqual(['/opds/v2']);
    expect(clientHrefs(client.Links, 'start')).toEqual(['/opds/v2']);
    expect(json.links.find((l) => l.rel === 'alternate')).toEqual({ rel: 'alternate', href: '/opds', type: 'application/atom+xml;profile=opds-catalog;kind=navigation' });
  });

  it('links each 1.2 feed to its 2.0 twin and back', async () => {
    const shelf = await request(t.app).post('/api/shelves').set(bearer(alice.token)).send({ name: 'Mine' }).expect(201).then((r) => r.body.id as string);
    const pairs = [['/opds', '/opds/v2'], ['/opds/recent', '/opds/v2/recent'], ['/opds/books', '/opds/v2/books'], ['/opds/search?q=le%20guin', '/opds/v2/search?query=le+guin'], ['/opds/shelves', '/opds/v2/shelves'], [`/opds/shelves/${shelf}`, `/opds/v2/shelves/${shelf}`]];
    for (const [v1, v2] of pairs) {
      const atom = (await opds(t.app, v1!)).text;
      expect(atom, v1).toContain(`<link rel="alternate" href="${v2}" type="application/opds+json"/>`);
      const { json } = await fetchFeed(t.app, v2!);
      const back = json.links.find((l) => l.rel === 'alternate');
      expect(back?.href, v2).toBe(v1);
      expect(back?.type).toMatch(/^application\/atom\+xml;profile=opds-catalog;kind=(navigation|acquisition)$/);
    }
  });
});

describe('OPDS 2.0 publications', () => {
  it('describes an uploaded EPUB: metadata, series, subjects, acquisition and cover, read back by r2-opds-js', async () => {
    const epub = await buildEpub({ title: 'Left Hand' });
    const id = await upload(epub, 'left-hand.epub');
    const { json, client } = await fetchFeed(t.app, '/opds/v2/recent');
    const pub = client.Publications[0]!;
    const m = pub.Metadata;
    expect([m.Title, m.Identifier, m.Language, m.Description]).toEqual(['Left Hand', 'urn:isbn:9780306406157', ['en-GB'], expect.stringContaining('classic')]);
    expect(m.Author.map((a) => a.Name)).toEqual(['Ursula K. Le Guin', 'Second & Author']);
    expect(m.Publisher.map((p) => p.Name)).toEqual(['Ace Books']);
    expect(m.Subject.map((s) => s.Name)).toEqual(['Science fiction', 'Gender']);
    expect(m.BelongsTo?.Series.map((s) => [s.Name, s.Position])).toEqual([['Hainish Cycle', 4]]);
    expect(m.Modified.toISOString()).toBe(json.publications?.[0]?.metadata.modified);
    expect(m.PublicationDate.toISOString()).toBe('1969-03-01T00:00:00.000Z');
    expect(pub.Links.map((l) => [l.Rel, l.Href, l.TypeLink])).toEqual([
      [['self'], `/opds/v2/books/${id}`, 'application/opds-publication+json'],
      [[ACQUIRE], `/opds/books/${id}/file`, 'application/epub+zip'],
      [['alternate'], `/opds/books/${id}`, 'application/atom+xml;type=entry;profile=opds-catalog'],
    ]);
    expect(pub.Images.map((i) => [i.Rel, i.Href, i.TypeLink])).toEqual([[['http://opds-spec.org/image'], `/opds/books/${id}/cover`, 'image/png']]);

    const file = await binary(opds(t.app, clientHrefs(pub.Links, ACQUIRE)[0]!, 'bob'));
    expect([file.status, file.headers['content-type'], Buffer.compare(file.body as Buffer, epub)]).toEqual([200, 'application/epub+zip', 0]);
    const cover = await binary(opds(t.app, pub.Images[0]!.Href, 'bob'));
    expect([cover.status, cover.headers['content-type']]).toEqual([200, 'image/png']);
    const self = await fetchPublication(t.app, `/opds/v2/books/${id}`, 'bob');
    expect(self.json).toEqual(json.publications?.[0]);
    expect(self.client.Metadata.Title).toBe('Left Hand');
    expect((await opds(t.app, '/opds/v2/books/no-such-book')).status).toBe(404);
  });

  it('gives every format the media type of the REST download', async () => {
    const files: Array<[Buffer, string]> = [
      [await buildEpub(), 'a.epub'], [buildPdf(), 'b.pdf'], [buildMobi(), 'c.mobi'], [buildMobi({ version: 8 }), 'd.azw3'],
      [await buildCbz(), 'e.cbz'], [buildFb2(), 'f.fb2'], [Buffer.from('Plain words.\n'.repeat(20)), 'g.txt'],
    ];
    const ids = [];
    for (const [file, name] of files) ids.push(await upload(file, name));
    const { client } = await fetchFeed(t.app, '/opds/v2/recent?page_size=10');
    const types = new Map(client.Publications.map((p) => [p.Links[0]!.Href.split('/').pop(), p.Links.find((l) => l.HasRel(ACQUIRE))!.TypeLink]));
    for (const id of ids) {
      const rest = await binary(request(t.app).get(`/api/books/${id}/file`).set(bearer(alice.token)));
      expect(types.get(id), id).toBe(rest.headers['content-type']);
    }
    expect([...types.values()].sort()).toEqual([
      'application/epub+zip', 'application/pdf', 'application/vnd.comicbook+zip', 'application/x-fictionbook+xml',
      'application/x-mobi8-ebook', 'application/x-mobipocket-ebook', 'text/plain',
    ]);
  });

  it('lists a book without a cover with the placeholder PNG, and one with a series, a stacks id and no ISBN', async () => {
    const repo = t.container.di.resolve<BookRepository>(PORTS.BookRepository);
    await repo.create(aBook({ id: 'plain-1', title: 'Plain', coverMediaType: null, series: 'Saga', seriesIndex: 1.5, tags: ['x'], isbn: null }));
    const { client } = await fetchFeed(t.app, '/opds/v2/books');
    const pub = client.Publications[0]!;
    expect(pub.Metadata.Identifier).toBe('urn:stacks:book:plain-1');
    expect(pub.Metadata.BelongsTo?.Series.map((s) => [s.Name, s.Position])).toEqual([['Saga', 1.5]]);
    expect(pub.Images.map((i) => [i.Href, i.TypeLink, i.Width, i.Height])).toEqual([['/opds/v2/covers/placeholder.png', 'image/png', 200, 300]]);
    const png = await binary(opds(t.app, '/opds/v2/covers/placeholder.png'));
    expect([png.status, png.headers['content-type']]).toEqual([200, 'image/png']);
    const body = png.body as Buffer;
    expect(body.subarray(1, 4).toString('latin1') + body.subarray(12, 16).toString('latin1')).toBe('PNGIHDR');
    expect([body.readUInt32BE(16), body.readUInt32BE(20)]).toEqual([200, 300]);
  });
});
