import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BookRepository } from '../../src/application/ports.js';
import { PORTS } from '../../src/bootstrap/tokens.js';
import type { Book } from '../../src/domain/book.js';
import { aBook } from '../support/builders.js';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';
import { as } from '../support/acting-as.js';
import { FakeClock } from '../support/clock.js';

let t: TestApp;
let clock: FakeClock;
let alice: Session;
let bob: Session;
let books: Book[];
const ids = (...indexes: number[]) => indexes.map((i) => (books[i] as Book).id);
beforeEach(async () => {
  clock = new FakeClock();
  t = await startTestApp({}, { clock });
  await registerUser(t.app, 'admin');
  alice = await registerUser(t.app, 'alice');
  bob = await registerUser(t.app, 'bob');
  const repo = t.container.di.resolve<BookRepository>(PORTS.BookRepository);
  books = [aBook(), aBook(), aBook(), aBook()];
  for (const book of books) await repo.create(book);
});
afterEach(() => t.close());


function expectValidation(res: request.Response, field: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(422);
  expect(res.body.code).toBe('validation_failed');
  expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
}

describe('creating shelves', () => {
  it('answers 201 with the shelf and its Location, and the shelf reads back the same', async () => {
    const res = await as(t.app, alice).post('/api/shelves', { name: '  To read ', description: 'Next up', is_public: true, book_ids: ids(1, 0) });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`/api/shelves/${res.body.id}`);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
      name: 'To read',
      description: 'Next up',
      is_public: true,
      owner: { id: alice.user.id, username: 'alice' },
      book_ids: ids(1, 0),
      book_count: 2,
      created_at: '2026-11-22T10:00:00.000Z',
      updated_at: '2026-11-22T10:00:00.000Z',
    });
    expect((await as(t.app, alice).get(res.headers.location as string)).body).toEqual(res.body);
  });

  it('defaults to a private, empty shelf without a description', async () => {
    const res = await as(t.app, alice).post('/api/shelves', { name: 'Plain' });
    expect(res.body).toMatchObject({ description: null, is_public: false, book_ids: [], book_count: 0 });
  });

  it('answers 409 shelf_name_taken for the same name of the same owner, ignoring case and spaces', async () => {
    expect((await as(t.app, alice).post('/api/shelves', { name: 'Favourites' })).status).toBe(201);
    const again = await as(t.app, alice).post('/api/shelves', { name: ' favourites  ' });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('shelf_name_taken');
    expect((await as(t.app, bob).post('/api/shelves', { name: 'Favourites' })).status).toBe(201);
    expect((await as(t.app, alice).get('/api/shelves?owner=me')).body.total).toBe(1);
  });

  it('answers 422 for blank, 101-character and non-string names, and accepts exactly 100', async () => {
    for (const name of ['', '   ', 'n'.repeat(101), 42, null]) {
      expectValidation(await as(t.app, alice).post('/api/shelves', { name }), 'name');
    }
    expectValidation(await as(t.app, alice).post('/api/shelves', {}), 'name');
    expect((await as(t.app, alice).post('/api/shelves', { name: ` ${'n'.repeat(100)} ` })).status).toBe(201);
  });

  it('answers 422 naming each unknown or repeated book id, and creates nothing', async () => {
    const unknown = await as(t.app, alice).post('/api/shelves', { name: 'A', book_ids: [...ids(0), 'ghost-1', 'ghost-2'] });
    expectValidation(unknown, 'book_ids.1');
    expect(unknown.body.errors).toEqual([
      { location: 'body', field: 'book_ids.1', message: "no book with id 'ghost-1'" },
      { location: 'body', field: 'book_ids.2', message: "no book with id 'ghost-2'" },
    ]);
    expectValidation(await as(t.app, alice).post('/api/shelves', { name: 'A', book_ids: ids(0, 1, 0) }), 'book_ids.2');
    expectValidation(await as(t.app, alice).post('/api/shelves', { name: 'A', book_ids: ['not an id'] }), 'book_ids.0');
    expect((await as(t.app, alice).get('/api/shelves')).body.total).toBe(0);
  });

  it('refuses unknown fields and non-JSON bodies', async () => {
    expectValidation(await as(t.app, alice).post('/api/shelves', { name: 'A', owner: { id: bob.user.id } }), '(root)');
    const form = await request(t.app).post('/api/shelves').set(bearer(alice.token)).type('form').send('name=A');
    expect(form.status).toBe(415);
  });

  it('accepts 10,000 book ids in one body and refuses 10,001', async () => {
    const many = Array.from({ length: 10_000 }, (_, i) => `missing-book-${i}`);
    const big = await as(t.app, alice).post('/api/shelves', { name: 'Huge', book_ids: many });
    expect(big.status).toBe(422);
    expect(big.body.errors).toHaveLength(100);
    expect(big.body.detail).toContain('10000');
    expectValidation(await as(t.app, alice).post('/api/shelves', { name: 'Huge', book_ids: [...many, 'one-more'] }), 'book_ids');
  });
});

describe('changing and deleting shelves', () => {
  it('reorders with the full book_ids list and moves updated_at forward', async () => {
    const id = (await as(t.app, alice).post('/api/shelves', { name: 'Series', book_ids: ids(0, 1, 2) })).body.id;
    clock.advance(60_000);
    const res = await as(t.app, alice).patch(`/api/shelves/${id}`, { book_ids: ids(2, 0, 1, 3) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      name: 'Series', book_ids: ids(2, 0, 1, 3), book_count: 4,
      created_at: '2026-11-22T10:00:00.000Z', updated_at: '2026-11-22T10:01:00.000Z',
    });
    const listed = await as(t.app, alice).get(`/api/shelves/${id}/books`);
    expect(listed.body.items.map((b: { id: string }) => b.id)).toEqual(ids(2, 0, 1, 3));
  });

  it('renames, describes and publishes, keeping the books', async () => {
    const id = (await as(t.app, alice).post('/api/shelves', { name: 'Old', book_ids: ids(0) })).body.id;
    const res = await as(t.app, alice).patch(`/api/shelves/${id}`, { name: 'New', description: 'Described', is_public: true });
    expect(res.body).toMatchObject({ name: 'New', description: 'Described', is_public: true, book_ids: ids(0) });
    expect((await as(t.app, alice).patch(`/api/shelves/${id}`, { description: null })).body.description).toBeNull();
  });

  it('answers 422 for an empty patch, a bad name or bad book ids, and 409 for a taken name', async () => {
    await as(t.app, alice).post('/api/shelves', { name: 'Taken' });
    const id = (await as(t.app, alice).post('/api/shelves', { name: 'Mine', book_ids: ids(0) })).body.id;
    expectValidation(await as(t.app, alice).patch(`/api/shelves/${id}`, {}), '(root)');
    expectValidation(await as(t.app, alice).patch(`/api/shelves/${id}`, { name: '' }), 'name');
    expectValidation(await as(t.app, alice).patch(`/api/shelves/${id}`, { book_ids: ['ghost'] }), 'book_ids.0');
    expectValidation(await as(t.app, alice).patch(`/api/shelves/${id}`, { book_ids: ids(1, 1) }), 'book_ids.1');
    const taken = await as(t.app, alice).patch(`/api/shelves/${id}`, { name: 'TAKEN' });
    expect(taken.status).toBe(409);
    expect(taken.body.code).toBe('shelf_name_taken');
    expect((await as(t.app, alice).get(`/api/shelves/${id}`)).body).toMatchObject({ name: 'Mine', book_ids: ids(0) });
  });

  it('deletes a shelf with 204 and keeps its books', async () => {
    const id = (await as(t.app, alice).post('/api/shelves', { name: 'Doomed', book_ids: ids(0, 1) })).body.id;
    expect((await as(t.app, alice).del(`/api/shelves/${id}`)).status).toBe(204);
    expect((await as(t.app, alice).get(`/api/shelves/${id}`)).status).toBe(404);
    expect((await as(t.app, alice).del(`/api/shelves/${id}`)).status).toBe(404);
    const repo = t.container.di.resolve<BookRepository>(PORTS.BookRepository);
    expect((await repo.findByIds(ids(0, 1))).length).toBe(2);
  });
});

describe('listing shelves', () => {
  it("lists one's own shelves and every public one by name; owner=me leaves the others out", async () => {
    await as(t.app, bob).post('/api/shelves', { name: 'b-public', is_public: true });
    await as(t.app, bob).post('/api/shelves', { name: 'b-private' });
    await as(t.app, alice).post('/api/shelves', { name: 'A-private' });
    const all = await as(t.app, alice).get('/api/shelves');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 2, page: 1, page_size: 20, total_pages: 1 });
    expect(all.body.items.map((s: { name: string }) => s.name)).toEqual(['A-private', 'b-public']);
    const own = await as(t.app, alice).get('/api/shelves?owner=me');
    expect(own.body.items.map((s: { name: string }) => s.name)).toEqual(['A-private']);
  });

  it('pages shelves and answers 422 for out-of-range or unknown query values', async () => {
    for (const name of ['c', 'a', 'e', 'b', 'd']) await as(t.app, alice).post('/api/shelves', { name });
    const second = await as(t.app, alice).get('/api/shelves?page=2&page_size=2');
    expect(second.body).toMatchObject({ total: 5, page: 2, page_size: 2, total_pages: 3 });
    expect(second.body.items.map((s: { name: string }) => s.name)).toEqual(['c', 'd']);
    expect((await as(t.app, alice).get('/api/shelves?page=9&page_size=2')).body.items).toEqual([]);
    for (const q of ['page=0', 'page_size=0', 'page_size=101', 'page=x', 'owner=bob', 'owner=me&owner=me', 'sort=name']) {
      const bad = await as(t.app, alice).get(`/api/shelves?${q}`);
      expect(bad.status, q).toBe(422);
      expect(bad.body.errors[0].location).toBe('query');
    }
  });
});
