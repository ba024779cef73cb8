import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BookRepository } from '../../src/application/ports.js';
import { PORTS } from '../../src/bootstrap/tokens.js';
import { aBook, instant } from '../support/builders.js';
import { buildEpub, buildFb2, buildPdf } from '../support/fixtures/index.js';
import { checkOpdsEntry, checkOpdsFeed, OPDS_ACQUISITION, OPDS_NAVIGATION, openSearchUrls, type AtomFeed } from '../support/opds-validator.js';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';

const PASSWORD = 'correct horse battery';
let t: TestApp;
let alice: Session;
let bob: Session;
beforeEach(async () => {
  t = await startTestApp({}, { loginPolicies: { account: { maxFailures: 3, windowMs: 60_000, blockMs: 60_000, maxBlockMs: 60_000 }, address: { maxFailures: 50, windowMs: 60_000, blockMs: 60_000, maxBlockMs: 60_000 } } });
  await registerUser(t.app, 'admin');
  alice = await registerUser(t.app, 'alice');
  bob = await registerUser(t.app, 'bob');
});
afterEach(() => t.close());

const opds = (path: string, who = 'alice', password = PASSWORD) => request(t.app).get(path).auth(who, password);
const xmlOf = (res: request.Response) => (Buffer.isBuffer(res.body) ? res.body.toString('utf8') : res.text);
const binary = (req: request.Test) => req.buffer(true).parse((res, done) => {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => done(null, Buffer.concat(chunks)));
});

async function feed(path: string, kind: 'navigation' | 'acquisition', who = 'alice'): Promise<AtomFeed> {
  const res = await opds(path, who);
  expect(res.status, xmlOf(res)).toBe(200);
  expect(res.headers['content-type']).toBe(`${kind === 'navigation' ? OPDS_NAVIGATION : OPDS_ACQUISITION};charset=utf-8`);
  const { feed: parsed, problems } = checkOpdsFeed(xmlOf(res), kind);
  expect(problems).toEqual([]);
  return parsed;
}

async function upload(session: Session, file: Buffer, name: string): Promise<string> {
  const res = await request(t.app).post('/api/books').set(bearer(session.token)).attach('file', file, name);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

const hrefs = (f: AtomFeed, rel: string) => f.link.filter((l) => l['@_rel'] === rel).map((l) => l['@_href']);

describe('OPDS authentication (HTTP Basic through the login use case)', () => {
  it('challenges with Basic realm="Stacks" without credentials, with wrong ones, and for a bearer token', async () => {
    for (const res of [
      await request(t.app).get('/opds'),
      await opds('/opds', 'alice', 'wrong password'),
      await opds('/opds', 'nobody', PASSWORD),
      await request(t.app).get('/opds').set(bearer(alice.token)),
      await request(t.app).get('/opds').set('Authorization', 'Basic not base64!'),
    ]) {
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Basic realm="Stacks", charset="UTF-8"');
      expect(res.body.code).toBe('invalid_credentials');
    }
    expect((await opds('/opds/books/x/file')).status).not.toBe(401);
  });

  it('is throttled like login: after the failures the right password is refused with 429 and Retry-After', async () => {
    for (let i = 0; i < 3; i++) expect((await opds('/opds', 'alice', `wrong ${i}`)).status).toBe(401);
    const blocked = await opds('/opds');
    expect(blocked.status).toBe(429);
    expect(blocked.body.code).toBe('rate_limited');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect((await opds('/opds', 'bob')).status).toBe(200);
  });

  it('remembers a verified login, yet a disabled account or a changed password is refused at the next request', async () => {
    expect((await opds('/opds', 'bob')).status).toBe(200);
    expect((await opds('/opds', 'alice')).status).toBe(200);
    const adminToken = (await request(t.app).post('/api/auth/login').send({ username: 'admin', password: PASSWORD })).body.access_token;
    await request(t.app).patch(`/api/users/${bob.user.id}`).set(bearer(adminToken)).send({ disabled: true }).expect(200);
    expect((await opds('/opds', 'bob')).status).toBe(401);
    await request(t.app).put('/api/auth/password').set(bearer(alice.token)).send({ current_password: PASSWORD, new_password: 'a new password' }).expect(204);
    expect((await opds('/opds', 'alice')).status).toBe(401);
    expect((await opds('/opds', 'alice', 'a new password')).status).toBe(200);
  });

  it('keeps a reader that already signed in working while guesses at its password are blocked', async () => {
    expect((await opds('/opds')).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await opds('/opds', 'alice', `guess ${i}`)).status).toBe(401);
    expect((await opds('/opds', 'alice', 'guess 4')).status).toBe(429);
    expect((await opds('/opds')).status).toBe(200);
    expect((await opds('/opds', 'ALICE')).status).toBe(429);
  });

  it('checks parallel first requests with one credential pair once, so a reader fetching many covers does not lock itself out', async () => {
    const statuses = (await Promise.all(Array.from({ length: 12 }, () => opds('/opds')))).map((res) => res.status);
    expect(statuses).toEqual(Array(12).fill(200));
    expect((await opds('/opds', 'alice', 'wrong')).status).toBe(401);
  });
});

describe('OPDS catalog feeds', () => {
  it('serves a root navigation feed linking recent, all books, shelves and search', async () => {
    const root = await feed('/opds', 'navigation');
    expect(root.title).toBe('Stacks');
    expect(hrefs(root, 'self')).toEqual(['/opds']);
    expect(hrefs(root, 'search')).toEqual(['/opds/opensearch.xml', '/opds/search?q={searchTerms}']);
    expect(root.entry?.map((e) => [e.title, e.link[0]?.['@_rel'], e.link[0]?.['@_href'], e.link[0]?.['@_type']])).toEqual([
      ['Recently added', 'http://opds-spec.org/sort/new', '/opds/recent', OPDS_ACQUISITION],
      ['All books', 'subsection', '/opds/books', OPDS_ACQUISITION],
      ['Shelves', 'subsection', '/opds/shelves', OPDS_NAVIGATION],
    ]);
    expect((await request(t.app).get('/openapi.json')).body.paths).not.toHaveProperty(['/opds']);
    expect(Object.keys((await request(t.app).get('/openapi.json')).body.paths).filter((p) => p.startsWith('/opds'))).toEqual([]);
  });

  it('lists uploaded books newest first with metadata, cover, thumbnail and acquisition links', async () => {
    const epub = await buildEpub({ title: 'Left Hand' });
    const epubId = await upload(alice, epub, 'left-hand.epub');
    const pdfId = await upload(bob, buildPdf({ info: { Title: 'Paper Book', Author: 'P. Author' } }), 'paper.pdf');
    const fb2Id = await upload(alice, buildFb2({ title: 'Russian Tale' }), 'tale.fb2');
    const recent = await feed('/opds/recent', 'acquisition');
    expect(recent.entry?.map((e) => e.id)).toEqual([fb2Id, pdfId, epubId].map((id) => `urn:stacks:book:${id}`));
    const left = recent.entry?.[2];
    expect(left).toMatchObject({ title: 'Left Hand', 'dc:language': 'en-GB', 'dc:publisher': 'Ace Books', 'dc:issued': '1969-03-01', 'dc:identifier': 'urn:isbn:9780306406157' });
    expect(left?.author?.map((a) => a.name)).toEqual(['Ursula K. Le Guin', 'Second & Author']);
    expect(left?.summary?.['#text']).toContain('classic');
    expect(left?.link.map((l) => [l['@_rel'], l['@_href'], l['@_type']])).toEqual([
      ['alternate', `/opds/books/${epubId}`, 'application/atom+xml;type=entry;profile=opds-catalog'],
      ['http://opds-spec.org/image', `/opds/books/${epubId}/cover`, 'image/png'],
      ['http://opds-spec.org/image/thumbnail', `/opds/books/${epubId}/cover`, 'image/png'],
      ['http://opds-spec.org/acquisition', `/opds/books/${epubId}/file`, 'application/epub+zip'],
    ]);
    expect(left?.link[3]?.['@_length']).toBe(String(epub.length));
    const pdfLinks = recent.entry?.[1]?.link.map((l) => l['@_type']);
    expect(pdfLinks).toContain('application/pdf');

    const entry = await opds(`/opds/books/${epubId}`);
    expect(entry.headers['content-type']).toBe('application/atom+xml;type=entry;profile=opds-catalog;charset=utf-8');
    const checked = checkOpdsEntry(xmlOf(entry));
    expect(checked.problems).toEqual([]);
    expect(checked.entry.title).toBe('Left Hand');
  });

  it('downloads the exact bytes and the cover through the OPDS links with Basic credentials', async () => {
    const epub = await buildEpub({ title: 'Bytes' });
    const id = await upload(alice, epub, 'Bytes & Co.epub');
    const file = await binary(opds(`/opds/books/${id}/file`, 'bob'));
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('application/epub+zip');
    expect(file.headers['content-disposition']).toMatch(/^attachment; filename=/);
    expect(Buffer.compare(file.body as Buffer, epub)).toBe(0);
    const cover = await binary(opds(`/opds/books/${id}/cover`, 'bob'));
    const apiCover = await binary(request(t.app).get(`/api/books/${id}/cover`).set(bearer(bob.token)));
    expect(cover.status).toBe(200);
    expect(cover.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(cover.body as Buffer, apiCover.body as Buffer)).toBe(0);
    expect((await opds('/opds/books/no-such-book/file')).status).toBe(404);
    expect((await opds(`/opds/books/${'x'.repeat(65)}`)).status).toBe(404);
  });

  it('pages acquisition feeds with next/previous links and opensearch counts; a bad page is 422', async () => {
    const repo = t.container.di.resolve<BookRepository>(PORTS.BookRepository);
    for (let i = 0; i < 45; i++) await repo.create(aBook({ title: `Paged ${String(i).padStart(2, '0')}`, createdAt: instant(1000 + i) }));
    const first = await feed('/opds/books', 'acquisition');
    expect(first.entry).toHaveLength(20);
    expect(first['opensearch:totalResults']).toBe('45');
    expect(hrefs(first, 'next')).toEqual(['/opds/books?page=2']);
    expect(hrefs(first, 'previous')).toEqual([]);
    const last = await feed('/opds/books?page=3', 'acquisition');
    expect(last.entry?.map((e) => e.title)).toEqual(['Paged 40', 'Paged 41', 'Paged 42', 'Paged 43', 'Paged 44']);
    expect(hrefs(last, 'self')).toEqual(['/opds/books?page=3']);
    expect(hrefs(last, 'next')).toEqual([]);
    expect(hrefs(last, 'previous')).toEqual(['/opds/books?page=2']);
    expect(last['opensearch:startIndex']).toBe('41');
    const newest = await feed('/opds/recent', 'acquisition');
    expect(newest.entry?.[0]?.title).toBe('Paged 44');
    for (const bad of ['0', '-1', 'two', '1.5']) expect((await opds(`/opds/books?page=${bad}`)).status).toBe(422);
  });

  it('escapes markup and drops characters XML forbids in titles, authors and summaries', async () => {
    const repo = t.container.di.resolve<BookRepository>(PORTS.BookRepository);
    await repo.create(aBook({ title: 'Tom & Jerry <b>"1"</b> \u0001]]>', authors: ['A <Author> & "Co"'], description: 'Line\u0000one\n<script>x</script>' }));
    const recent = await feed('/opds/recent', 'acquisition');
    expect(recent.entry?.[0]).toMatchObject({ title: 'Tom & Jerry <b>"1"</b> ]]>', author: [{ name: 'A <Author> & "Co"' }], summary: { '#text': 'Lineone\n<script>x</script>' } });
  });
});

describe('OPDS search', () => {
  it('describes itself with OpenSearch and finds books by title, author or tag', async () => {
    const description = await opds('/opds/opensearch.xml').set('Host', 'books.lan:8000');
    expect(description.headers['content-type']).toBe('application/opensearchdescription+xml;charset=utf-8');
    expect(openSearchUrls(xmlOf(description))).toEqual([{ type: OPDS_ACQUISITION, template: 'http://books.lan:8000/opds/search?q={searchTerms}' }]);
    const repo = t.container.di.resolve<BookRepository>(PORTS.BookRepository);
    await repo.create(aBook({ title: 'Dune', authors: ['Frank Herbert'] }));
    await repo.create(aBook({ title: 'Emma', authors: ['Jane Austen'], tags: ['romance'] }));
    const found = await feed('/opds/search?q=herb', 'acquisition');
    expect(found.entry?.map((e) => e.title)).toEqual(['Dune']);
    expect(hrefs(found, 'self')).toEqual(['/opds/search?q=herb']);
    expect((await feed('/opds/search?q=ROMANCE', 'acquisition')).entry?.map((e) => e.title)).toEqual(['Emma']);
    expect((await feed('/opds/search?q=nothing%20like%20it', 'acquisition')).entry).toBeUndefined();
    expect((await opds('/opds/search')).status).toBe(422);
    expect((await opds('/opds/search?q=%20')).status).toBe(422);
  });
});

describe('OPDS shelves (the API visibility rules)', () => {
  it('lists own and public shelves as navigation, each shelf as an acquisition feed in shelf order; private ones of others are 404', async () => {
    const repo = t.container.di.resolve<BookRepository>(PORTS.BookRepository);
    const [b1, b2] = [aBook({ title: 'First' }), aBook({ title: 'Second' })];
    await repo.create(b1);
    await repo.create(b2);
    const shelf = (s: Session, body: object) => request(t.app).post('/api/shelves').set(bearer(s.token)).send(body).expect(201).then((r) => r.body.id as string);
    const secret = await shelf(alice, { name: 'Secret', book_ids: [b1.id] });
    const shared = await shelf(alice, { name: 'Shared', is_public: true, description: 'For all', book_ids: [b2.id, b1.id] });
    const bobs = await shelf(bob, { name: 'Bob private' });

    const aliceShelves = await feed('/opds/shelves', 'navigation', 'alice');
    expect(aliceShelves.entry?.map((e) => [e.title, e.content, e.link[0]?.['@_href']])).toEqual([
      ['Secret', { '#text': '1 book', '@_type': 'text' }, `/opds/shelves/${secret}`],
      ['Shared', { '#text': 'For all (2 books)', '@_type': 'text' }, `/opds/shelves/${shared}`],
    ]);
    const bobShelves = await feed('/opds/shelves', 'navigation', 'bob');
    expect(bobShelves.entry?.map((e) => e.title)).toEqual(['Bob private', 'Shared']);

    const sharedFeed = await feed(`/opds/shelves/${shared}`, 'acquisition', 'bob');
    expect(sharedFeed.title).toBe('Shared');
    expect(sharedFeed.entry?.map((e) => e.title)).toEqual(['Second', 'First']);
    const hidden = await opds(`/opds/shelves/${secret}`, 'bob');
    expect(hidden.status).toBe(404);
    expect(hidden.body.code).toBe('shelf_not_found');
    expect((await opds(`/opds/shelves/${bobs}`, 'alice')).status).toBe(404);
  });
});
