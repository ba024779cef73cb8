import request from 'supertest';
import { XMLParser } from 'fast-xml-parser';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { as } from '../support/acting-as.js';
import { buildCbz, buildEpub, buildFb2, buildMobi, buildPdf } from '../support/fixtures/index.js';
import { ACQUISITION_REL, koreaderFiletype } from '../support/koreader-opds.js';
import { fetchFeed, fetchPublication, opds, PASSWORD } from '../support/opds2/catalog.js';
import { checkAuthenticationDocument } from '../support/opds2/opds2-validator.js';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';

/** Uploading one book of every format (PDFs are parsed in a worker) takes seconds on a loaded machine. */
const SLOW = 90_000;

/*
 * OPDS as real readers use it: every OPDS 2.0 document shape checked against the official schemas
 * (support/opds2/schema), OPDS 1.2 complete entries that link to themselves, absolute URLs from the
 * request when PUBLIC_URL is unset, and KOReader's OPDS browser offering every format for download.
 */
const ACQUISITION_TYPES = {
  epub: 'application/epub+zip', pdf: 'application/pdf', azw3: 'application/x-mobi8-ebook', mobi: 'application/x-mobipocket-ebook',
  cbz: 'application/vnd.comicbook+zip', fb2: 'application/x-fictionbook+xml', txt: 'text/plain',
} as const;
/** The file type KOReader saves each format as (OPDSBrowser.getFiletype over its DocumentRegistry). */
const KOREADER_SAVES_AS = { epub: 'epub', pdf: 'pdf', azw3: 'azw', mobi: 'mobi', cbz: 'cbz', fb2: 'fb2', txt: 'log' } as const;

const atom = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', isArray: (name) => ['entry', 'link'].includes(name) });
type AtomLink = { '@_rel': string; '@_href': string; '@_type': string };

let t: TestApp;
let alice: Session;
afterEach(() => t.close());

async function uploadEveryFormat(session: Session): Promise<Record<string, string>> {
  const files: Array<[keyof typeof ACQUISITION_TYPES, Buffer, string]> = [
    ['epub', await buildEpub({ title: 'An EPUB' }), 'a.epub'], ['pdf', buildPdf({ info: { Title: 'A PDF' } }), 'b.pdf'],
    ['mobi', buildMobi(), 'c.mobi'], ['azw3', buildMobi({ version: 8 }), 'd.azw3'], ['cbz', await buildCbz(), 'e.cbz'],
    ['fb2', buildFb2(), 'f.fb2'], ['txt', Buffer.from('Plain words.\n'.repeat(20)), 'g.txt'],
  ];
  const ids: Record<string, string> = {};
  for (const [format, bytes, name] of files) {
    const res = await request(t.app).post('/api/books').set(bearer(session.token)).attach('file', bytes, name);
    expect([res.status, res.body.format]).toEqual([201, format]);
    ids[res.body.id] = format;
  }
  return ids;
}

describe('OPDS 2.0: every document shape validates against the official schemas', () => {
  beforeEach(async () => {
    t = await startTestApp();
    await registerUser(t.app, 'admin');
    alice = await registerUser(t.app, 'alice');
  });

  it('an empty library: root, recent, all books, a search with no hits, no shelves, an empty shelf, a page past the end', async () => {
    const shelf = (await as(t.app, alice).post('/api/shelves', { name: 'Later' })).body.id as string;
    const shapes: Record<string, string | undefined> = {};
    for (const path of ['/opds/v2', '/opds/v2/recent', '/opds/v2/books', '/opds/v2/search?query=nothing', `/opds/v2/shelves/${shelf}`, '/opds/v2/books?page=5']) {
      const { json } = await fetchFeed(t.app, path);
      shapes[path] = json.publications ? 'publications' : json.navigation?.[0]?.title;
    }
    await as(t.app, alice).del(`/api/shelves/${shelf}`).expect(204);
    shapes['/opds/v2/shelves'] = (await fetchFeed(t.app, '/opds/v2/shelves')).json.navigation?.[0]?.title;
    expect(shapes).toEqual({
      '/opds/v2': 'Recently added',
      '/opds/v2/recent': 'Nothing here yet: back to the catalog',
      '/opds/v2/books': 'Nothing here yet: back to the catalog',
      '/opds/v2/search?query=nothing': 'No books match “nothing”: browse all books',
      [`/opds/v2/shelves/${shelf}`]: 'This shelf has no books yet: back to the shelves',
      '/opds/v2/books?page=5': 'Nothing here yet: back to the catalog',
      '/opds/v2/shelves': 'No shelves yet: browse all books',
    });
  });

  it('a library with books: feeds, search hits, a shelf, every publication and the authentication document', async () => {
    const ids = Object.keys(await uploadEveryFormat(alice));
    const shelf = (await as(t.app, alice).post('/api/shelves', { name: 'All of them', book_ids: ids })).body.id as string;
    for (const path of ['/opds/v2/recent', '/opds/v2/books?sort=-published&page_size=3&page=2', '/opds/v2/search?query=pdf', '/opds/v2/shelves', `/opds/v2/shelves/${shelf}`]) {
      const { json } = await fetchFeed(t.app, path);
      expect(json.publications ?? json.navigation, path).not.toHaveLength(0);
    }
    for (const id of ids) await fetchPublication(t.app, `/opds/v2/books/${id}`);
    for (const res of [await request(t.app).get('/opds/v2/auth'), await request(t.app).get('/opds/v2/books')]) {
      expect(checkAuthenticationDocument(res.text).problems).toEqual([]);
    }
  }, SLOW);
});

describe('acquisition links as e-readers know them', () => {
  beforeEach(async () => {
    t = await startTestApp();
    alice = await registerUser(t.app, 'alice');
  });

  it('OPDS 1.2 and 2.0 offer each format under the contract\'s type, and KOReader\'s OPDS browser offers every one for download', async () => {
    const formats = await uploadEveryFormat(alice);
    const base = 'http://books.lan:8000';
    const feed = atom.parse((await opds(t.app, '/opds/books').set('Host', 'books.lan:8000')).text).feed;
    const offered: Record<string, { type: string; koreader: string | null }[]> = {};
    for (const entry of feed.entry) {
      const id = String(entry.id).replace('urn:stacks:book:', '');
      // genItemTableFromCatalog: links whose rel matches the acquisition pattern, their href made absolute.
      offered[formats[id]!] = (entry.link as AtomLink[]).filter((l) => ACQUISITION_REL.test(l['@_rel']))
        .map((l) => ({ type: l['@_type'], koreader: koreaderFiletype({ href: new URL(l['@_href'], `${base}/opds/books`).href, type: l['@_type'] }) }));
    }
    expect(offered).toEqual(Object.fromEntries(Object.entries(ACQUISITION_TYPES).map(([format, type]) =>
      [format, [{ type, koreader: KOREADER_SAVES_AS[format as keyof typeof KOREADER_SAVES_AS] }]])));

    const { json } = await fetchFeed(t.app, '/opds/v2/books?page_size=10');
    for (const publication of json.publications ?? []) {
      const id = publication.links.find((l) => l.rel === 'self')!.href.split('/').pop()!;
      const acquisitions = publication.links.filter((l) => ACQUISITION_REL.test(l.rel ?? ''));
      const format = formats[id] as keyof typeof ACQUISITION_TYPES;
      expect(acquisitions.map((l) => [l.type, koreaderFiletype({ href: `${base}${l.href}`, type: l.type })])).toEqual([[ACQUISITION_TYPES[format], KOREADER_SAVES_AS[format]]]);
    }
  }, SLOW);

  it('an OPDS 1.2 complete entry links to itself with rel="self" (and holds content); a feed\'s partial entry links to it as alternate', async () => {
    const id = Object.keys(await uploadEveryFormat(alice))[0]!;
    const complete = atom.parse((await opds(t.app, `/opds/books/${id}`)).text).entry[0];
    const rels = (links: AtomLink[]) => links.filter((l) => l['@_type'] === 'application/atom+xml;type=entry;profile=opds-catalog').map((l) => [l['@_rel'], l['@_href']]);
    expect(rels(complete.link)).toEqual([['self', `/opds/books/${id}`]]);
    expect(complete.content).toBeDefined();
    const partial = atom.parse((await opds(t.app, '/opds/books')).text).feed.entry.find((e: { id: string }) => e.id === `urn:stacks:book:${id}`);
    expect(rels(partial.link)).toEqual([['alternate', `/opds/books/${id}`]]);
  }, SLOW);
});

describe('absolute URLs when PUBLIC_URL is unset: the request\'s own scheme and Host', () => {
  const searchTemplate = async (headers: Record<string, string>) => {
    const xml = (await request(t.app).get('/opds/opensearch.xml').auth('alice', PASSWORD).set(headers)).text;
    return new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml).OpenSearchDescription.Url.template as string;
  };
  const authId = async (headers: Record<string, string>) => JSON.parse((await request(t.app).get('/opds/v2/auth').set(headers)).text).id as string;

  it('a reader on the LAN gets its own address back in the OpenSearch template and the authentication document', async () => {
    t = await startTestApp({ PORT: '8000' });
    alice = await registerUser(t.app, 'alice');
    expect(await searchTemplate({ Host: '192.168.1.20:8000' })).toBe('http://192.168.1.20:8000/opds/search?q={searchTerms}');
    expect(await searchTemplate({ Host: 'Books.Lan' })).toBe('http://books.lan/opds/search?q={searchTerms}');
    expect(await authId({ Host: '[fd00::20]:8000' })).toBe('http://[fd00::20]:8000/opds/v2/auth');
    // Forwarded headers count only behind a trusted proxy (TRUST_PROXY=0 here).
    expect(await searchTemplate({ Host: 'books.lan:8000', 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'evil.example' })).toBe('http://books.lan:8000/opds/search?q={searchTerms}');
  });

  it('behind a trusted proxy, X-Forwarded-Proto and X-Forwarded-Host say the public address', async () => {
    t = await startTestApp({ TRUST_PROXY: '1' });
    alice = await registerUser(t.app, 'alice');
    expect(await searchTemplate({ Host: '127.0.0.1:8000', 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'books.example.org' })).toBe('https://books.example.org/opds/search?q={searchTerms}');
    expect(await authId({ 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'books.example.org' })).toBe('https://books.example.org/opds/v2/auth');
  });

  it('a Host that is not host[:port] is never echoed: the catalog falls back to the configured default', async () => {
    t = await startTestApp({ PORT: '8000', TRUST_PROXY: '1' });
    alice = await registerUser(t.app, 'alice');
    for (const hostile of ['evil.example/"><script>', 'evil.example@x', 'a b', 'evil.example:80:80', `${'a'.repeat(300)}.example`]) {
      const res = await request(t.app).get('/opds/opensearch.xml').auth('alice', PASSWORD).set('X-Forwarded-Host', hostile);
      expect(res.status, hostile).toBe(200);
      expect(res.text, hostile).not.toContain('evil');
      expect(res.text, hostile).not.toContain('aaaa');
      expect(res.text).toContain('http://localhost:8000/opds/search?q={searchTerms}');
    }
  });

  it('with PUBLIC_URL set, every absolute URL is PUBLIC_URL whatever the Host says', async () => {
    t = await startTestApp({ PUBLIC_URL: 'https://stacks.example.org/' });
    alice = await registerUser(t.app, 'alice');
    expect(await searchTemplate({ Host: 'books.lan:8000' })).toBe('https://stacks.example.org/opds/search?q={searchTerms}');
    expect(await authId({ Host: 'books.lan:8000' })).toBe('https://stacks.example.org/opds/v2/auth');
  });
});
