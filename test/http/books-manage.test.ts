import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ShelfRepository } from '../../src/application/ports.js';
import { PORTS } from '../../src/bootstrap/tokens.js';
import { aShelf } from '../support/builders.js';
import { buildEpub, buildPdf } from '../support/fixtures/index.js';
import { storedFiles, upload } from '../support/books.js';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';
import { as } from '../support/acting-as.js';
import { FakeClock } from '../support/clock.js';

let t: TestApp;
let clock: FakeClock;
let admin: Session;
let alice: Session;
let bob: Session;
const ids: Record<string, string> = {};

async function add(who: Session, key: string, fields: Record<string, string>, bytes?: Buffer) {
  clock.advance(60_000);
  const res = await upload(t.app, who, bytes ?? Buffer.from(`The text of ${key}.\n`), `${key}.txt`, fields);
  expect(res.status, key).toBe(201);
  ids[key] = res.body.id;
}

beforeAll(async () => {
  clock = new FakeClock();
  t = await startTestApp({}, { clock });
  admin = await registerUser(t.app, 'admin');
  alice = await registerUser(t.app, 'alice');
  bob = await registerUser(t.app, 'bob');
  await add(alice, 'dune', { title: 'Dune', authors: 'Frank Herbert', tags: 'SF,classic', series: 'Dune Chronicles', published: '1965' });
  await add(alice, 'emma', { title: 'Emma', authors: 'Jane Austen', tags: 'romance', published: '1815-12' });
  await add(bob, 'pure', { title: '100% Pure', authors: 'Zed Writer', tags: 'sf' });
  await add(bob, 'anathem', { title: 'anathem', authors: 'Neal Stephenson', published: '2008-09-09' });
  await add(alice, 'sicp', { title: 'SICP' }, buildPdf({ info: { Title: 'SICP', Author: 'Harold Abelson' } }));
});
afterAll(() => t.close());

const titles = (res: request.Response) => (res.body.items as Array<{ title: string }>).map((b) => b.title);

describe('GET /api/books', () => {
  it('lists newest first by default in the list envelope', async () => {
    const res = await as(t.app, bob).get('/api/books');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 5, page: 1, page_size: 20, total_pages: 1 });
    expect(titles(res)).toEqual(['SICP', 'anathem', '100% Pure', 'Emma', 'Dune']);
  });

  it('searches title, authors, tags and series case-insensitively; % is a literal', async () => {
    expect(titles(await as(t.app, bob).get('/api/books?q=DUNE'))).toEqual(['Dune']);
    expect(titles(await as(t.app, bob).get('/api/books?q=austen'))).toEqual(['Emma']);
    expect(titles(await as(t.app, bob).get('/api/books?q=chronicles'))).toEqual(['Dune']);
    expect(titles(await as(t.app, bob).get('/api/books?q=sf&sort=title'))).toEqual(['100% Pure', 'Dune']);
    expect(titles(await as(t.app, bob).get('/api/books?q=%25'))).toEqual(['100% Pure']);
    expect(titles(await as(t.app, bob).get('/api/books?q=_'))).toEqual([]);
  });

  it('filters by author, tag and format', async () => {
    expect(titles(await as(t.app, bob).get('/api/books?author=frank%20herbert'))).toEqual(['Dune']);
    expect(titles(await as(t.app, bob).get('/api/books?tag=CLASSIC'))).toEqual(['Dune']);
    expect(titles(await as(t.app, bob).get('/api/books?format=pdf'))).toEqual(['SICP']);
    expect((await as(t.app, bob).get('/api/books?format=doc')).status).toBe(422);
  });

  it('sorts by title, author, added and published, either way', async () => {
    expect(titles(await as(t.app, bob).get('/api/books?sort=title'))).toEqual(['100% Pure', 'anathem', 'Dune', 'Emma', 'SICP']);
    expect(titles(await as(t.app, bob).get('/api/books?sort=-title'))).toEqual(['SICP', 'Emma', 'Dune', 'anathem', '100% Pure']);
    expect(titles(await as(t.app, bob).get('/api/books?sort=author'))).toEqual(['Dune', 'SICP', 'Emma', 'anathem', '100% Pure']);
    expect(titles(await as(t.app, bob).get('/api/books?sort=added'))).toEqual(['Dune', 'Emma', '100% Pure', 'anathem', 'SICP']);
    expect(titles(await as(t.app, bob).get('/api/books?sort=published')).slice(0, 3)).toEqual(['Emma', 'Dune', 'anathem']);
  });

  it('pages, and refuses out-of-range or unknown parameters with 422', async () => {
    const page2 = await as(t.app, bob).get('/api/books?page_size=2&page=2&sort=title');
    expect(page2.body).toMatchObject({ total: 5, page: 2, page_size: 2, total_pages: 3 });
    expect(titles(page2)).toEqual(['Dune', 'Emma']);
    for (const q of ['page_size=101', 'page_size=0', 'page=0', 'sort=size', 'owner=me', `q=${'x'.repeat(201)}`, 'q=a&q=b']) {
      const res = await as(t.app, bob).get(`/api/books?${q}`);
      expect(res.status, q).toBe(422);
      expect(res.body.errors[0].location).toBe('query');
    }
  });
});

describe('GET and PATCH /api/books/{id}', () => {
  it('reads any book with books:read and 404s an unknown one', async () => {
    expect((await as(t.app, bob).get(`/api/books/${ids.dune}`)).body.title).toBe('Dune');
    const missing = await as(t.app, bob).get('/api/books/no-such-book');
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('book_not_found');
  });

  it('lets the uploader edit every metadata field and moves updated_at only', async () => {
    const before = (await as(t.app, alice).get(`/api/books/${ids.emma}`)).body;
    clock.advance(1000);
    const res = await as(t.app, alice).patch(`/api/books/${ids.emma}`, {
      title: '  Emma (annotated) ', authors: ['Jane Austen', 'An Editor'], description: 'Matchmaking.', publisher: 'John Murray',
      language: 'en', published: '1815-12-23', isbn: '978-0-306-40615-7', tags: ['classic'], series: 'Austen', series_index: 1,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      title: 'Emma (annotated)', authors: ['Jane Austen', 'An Editor'], description: 'Matchmaking.', publisher: 'John Murray',
      language: 'en', published: '1815-12-23', isbn: '9780306406157', tags: ['classic'], series: 'Austen', series_index: 1,
      sha256: before.sha256, file_name: before.file_name, created_at: before.created_at,
    });
    expect(res.body.updated_at).toBe(clock.now().toISOString());
    expect(res.body.updated_at).not.toBe(before.updated_at);
    expect((await as(t.app, bob).get(`/api/books/${ids.emma}`)).body.title).toBe('Emma (annotated)');
    const cleared = await as(t.app, alice).patch(`/api/books/${ids.emma}`, { description: null, series: null, series_index: null });
    expect(cleared.body).toMatchObject({ description: null, series: null, series_index: null, title: 'Emma (annotated)' });
  });

  it('refuses fields that are not editable and invalid values with 422, changing nothing', async () => {
    const before = (await as(t.app, alice).get(`/api/books/${ids.dune}`)).body;
    const bad: object[] = [
      { owner: bob.user.id }, { sha256: '0'.repeat(64) }, { id: 'x' }, { uploaded_by: { id: 'x' } }, {},
      { title: '   ' }, { title: 'x'.repeat(501) }, { published: '2019-02-30' }, { published: '19' }, { series_index: -1 },
      { isbn: '1234567890' }, { authors: 'Not An Array' }, { language: 'english please' },
    ];
    for (const body of bad) {
      const res = await as(t.app, alice).patch(`/api/books/${ids.dune}`, body);
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(422);
    }
    expect((await as(t.app, alice).get(`/api/books/${ids.dune}`)).body).toEqual(before);
  });

  it('is 403 for another user\'s book and for a reader; an admin may edit any book', async () => {
    const other = await as(t.app, bob).patch(`/api/books/${ids.dune}`, { title: 'Mine now' });
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('permission_denied');
    const reader = await registerUser(t.app, 'reader');
    await as(t.app, admin).patch(`/api/users/${reader.user.id}`, { roles: ['reader'] }).expect(200);
    expect((await as(t.app, reader).patch(`/api/books/${ids.dune}`, { title: 'x' })).status).toBe(403);
    expect((await as(t.app, reader).del(`/api/books/${ids.dune}`)).status).toBe(403);
    expect((await as(t.app, reader).get(`/api/books/${ids.dune}`)).status).toBe(200);
    const byAdmin = await as(t.app, admin).patch(`/api/books/${ids.dune}`, { tags: ['SF', 'classic', 'desert'] });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body.uploaded_by.username).toBe('alice');
    expect((await as(t.app, alice).patch('/api/books/no-such-book', { title: 'x' })).status).toBe(404);
  });
});

describe('DELETE /api/books/{id}', () => {
  it('is 403 for someone else\'s book, and leaves it in place', async () => {
    const res = await as(t.app, bob).del(`/api/books/${ids.sicp}`);
    expect(res.status).toBe(403);
    expect((await as(t.app, bob).get(`/api/books/${ids.sicp}`)).status).toBe(200);
  });

  it('removes the record, the file, the cover and every shelf entry', async () => {
    const epub = await upload(t.app, alice, await buildEpub({ title: 'To delete' }), 'del.epub');
    const id = epub.body.id as string;
    const shelves = t.container.di.resolve<ShelfRepository>(PORTS.ShelfRepository);
    const shelfA = aShelf({ owner: { id: alice.user.id, username: 'alice' }, bookIds: [ids.dune!, id] });
    const shelfB = aShelf({ owner: { id: bob.user.id, username: 'bob' }, bookIds: [id] });
    await shelves.create(shelfA);
    await shelves.create(shelfB);
    expect((await storedFiles(t)).books).toEqual(expect.arrayContaining([`${id}.book`, `${id}.cover`]));

    expect((await as(t.app, alice).del(`/api/books/${id}`)).status).toBe(204);
    expect((await as(t.app, alice).get(`/api/books/${id}`)).status).toBe(404);
    expect((await as(t.app, alice).get(`/api/books/${id}/file`)).status).toBe(404);
    const files = await storedFiles(t);
    expect(files.books.filter((name) => name.startsWith(id))).toEqual([]);
    expect(files.books).toContain(`${ids.dune}.book`);
    expect((await shelves.findById(shelfA.id))?.bookIds).toEqual([ids.dune]);
    expect((await shelves.findById(shelfB.id))?.bookIds).toEqual([]);
    expect((await as(t.app, alice).del(`/api/books/${id}`)).status).toBe(404);
  });

  it('lets an admin delete any book', async () => {
    expect((await as(t.app, admin).del(`/api/books/${ids.pure}`)).status).toBe(204);
    expect((await storedFiles(t)).books).not.toContain(`${ids.pure}.book`);
  });
});
