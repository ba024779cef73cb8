import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BookRepository, ShelfRepository } from '../../src/application/ports.js';
import { PORTS } from '../../src/bootstrap/tokens.js';
import type { Book } from '../../src/domain/book.js';
import { aBook } from '../support/builders.js';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';
import { as } from '../support/acting-as.js';
import { FakeClock } from '../support/clock.js';

let t: TestApp;
let clock: FakeClock;
let admin: Session;
let alice: Session;
let bob: Session;
let books: Book[];
let repo: BookRepository;
const ids = (...indexes: number[]) => indexes.map((i) => (books[i] as Book).id);
const id = (index: number) => (books[index] as Book).id;
beforeEach(async () => {
  clock = new FakeClock();
  t = await startTestApp({}, { clock });
  admin = await registerUser(t.app, 'admin');
  alice = await registerUser(t.app, 'alice');
  bob = await registerUser(t.app, 'bob');
  repo = t.container.di.resolve<BookRepository>(PORTS.BookRepository);
  books = Array.from({ length: 5 }, (_, i) => aBook({ title: `Title ${i}`, coverMediaType: i === 0 ? 'image/jpeg' : null }));
  for (const book of books) await repo.create(book);
});
afterEach(() => t.close());


async function shelf(s: Session, body: object): Promise<string> {
  return (await as(t.app, s).post('/api/shelves', body).expect(201)).body.id;
}
const bookIdsOf = async (shelfId: string) => (await as(t.app, alice).get(`/api/shelves/${shelfId}`)).body.book_ids;

describe('adding and removing books', () => {
  it('PUT appends at the end and is idempotent (204 both times, no move, no duplicate)', async () => {
    const s = await shelf(alice, { name: 'Queue', book_ids: ids(0, 1) });
    clock.advance(5_000);
    expect((await as(t.app, alice).put(`/api/shelves/${s}/books/${id(3)}`)).status).toBe(204);
    expect(await bookIdsOf(s)).toEqual(ids(0, 1, 3));
    expect((await as(t.app, alice).get(`/api/shelves/${s}`)).body.updated_at).toBe('2026-11-22T10:00:05.000Z');
    const again = await as(t.app, alice).put(`/api/shelves/${s}/books/${id(0)}`);
    expect(again.status).toBe(204);
    expect(again.text).toBe('');
    expect((await as(t.app, alice).get(`/api/shelves/${s}`)).body).toMatchObject({ book_ids: ids(0, 1, 3), book_count: 3 });
  });

  it('PUT of a book that does not exist is 404 book_not_found; a malformed id is 422', async () => {
    const s = await shelf(alice, { name: 'Queue' });
    const missing = await as(t.app, alice).put(`/api/shelves/${s}/books/no-such-book`);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('book_not_found');
    expect((await as(t.app, alice).put(`/api/shelves/${s}/books/bad%20id`)).status).toBe(422);
    expect(await bookIdsOf(s)).toEqual([]);
  });

  it('DELETE takes the book off (204) and is 404 book_not_on_shelf when it is not there', async () => {
    const s = await shelf(alice, { name: 'Queue', book_ids: ids(0, 1, 2) });
    expect((await as(t.app, alice).del(`/api/shelves/${s}/books/${id(1)}`)).status).toBe(204);
    expect(await bookIdsOf(s)).toEqual(ids(0, 2));
    for (const bookId of [id(1), id(4), 'no-such-book']) {
      const res = await as(t.app, alice).del(`/api/shelves/${s}/books/${bookId}`);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('book_not_on_shelf');
    }
    expect(await repo.findById(id(1))).not.toBeNull();
  });
});

describe('the books of a shelf', () => {
  it('lists them in shelf order in the list envelope, with the Book JSON shape', async () => {
    const s = await shelf(alice, { name: 'Ordered', book_ids: ids(2, 0, 4) });
    const res = await as(t.app, alice).get(`/api/shelves/${s}/books`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ total: 3, page: 1, page_size: 20, total_pages: 1 });
    expect(res.body.items.map((b: { id: string }) => b.id)).toEqual(ids(2, 0, 4));
    const first = books[0] as Book;
    expect(res.body.items[1]).toEqual({
      id: first.id, title: 'Title 0', authors: [...first.authors], description: null, publisher: null, language: 'en',
      published: null, isbn: null, tags: [], series: null, series_index: null, format: 'epub', file_name: first.fileName,
      file_size: first.fileSize, sha256: first.sha256, has_cover: true, cover_url: `/api/books/${first.id}/cover`,
      download_url: `/api/books/${first.id}/file`, uploaded_by: { id: first.owner.id, username: first.owner.username },
      created_at: first.createdAt.toISOString(), updated_at: first.updatedAt.toISOString(),
    });
    expect(res.body.items[0]).toMatchObject({ has_cover: false, cover_url: null });
  });

  it('pages them and answers 422 for out-of-range paging', async () => {
    const s = await shelf(alice, { name: 'Paged', book_ids: ids(4, 3, 2, 1, 0) });
    const page2 = await as(t.app, alice).get(`/api/shelves/${s}/books?page=2&page_size=2`);
    expect(page2.body).toMatchObject({ total: 5, page: 2, page_size: 2, total_pages: 3 });
    expect(page2.body.items.map((b: { id: string }) => b.id)).toEqual(ids(2, 1));
    const page3 = await as(t.app, alice).get(`/api/shelves/${s}/books?page=3&page_size=2`);
    expect(page3.body.items.map((b: { id: string }) => b.id)).toEqual(ids(0));
    for (const q of ['page=0', 'page_size=101', 'page_size=-1', 'q=x']) {
      const bad = await as(t.app, alice).get(`/api/shelves/${s}/books?${q}`);
      expect(bad.status, q).toBe(422);
      expect(bad.body.code).toBe('validation_failed');
    }
  });

  it('drops a book deleted from the library from every shelf at once', async () => {
    const mine = await shelf(alice, { name: 'Mine', book_ids: ids(0, 1, 2) });
    const theirs = await shelf(bob, { name: 'Theirs', is_public: true, book_ids: ids(1, 3) });
    const shelves = t.container.di.resolve<ShelfRepository>(PORTS.ShelfRepository);
    clock.advance(1_000);
    expect(await repo.delete(id(1))).toBe(true);
    await shelves.removeBookEverywhere(id(1), clock.now());
    expect(await bookIdsOf(mine)).toEqual(ids(0, 2));
    expect((await as(t.app, alice).get(`/api/shelves/${theirs}`)).body).toMatchObject({ book_ids: ids(3), book_count: 1 });
    const listed = await as(t.app, alice).get(`/api/shelves/${theirs}/books`);
    expect(listed.body).toMatchObject({ total: 1, items: [{ id: id(3) }] });
    expect((await as(t.app, alice).del(`/api/shelves/${mine}/books/${id(1)}`)).body.code).toBe('book_not_on_shelf');
  });

  it('drops a book from every shelf when it is deleted through DELETE /api/books/{id}', async () => {
    const mine = await shelf(alice, { name: 'Mine', book_ids: ids(0, 1, 2) });
    const theirs = await shelf(bob, { name: 'Theirs', book_ids: ids(2, 1) });
    expect((await as(t.app, admin).del(`/api/books/${id(2)}`)).status).toBe(204);
    expect(await bookIdsOf(mine)).toEqual(ids(0, 1));
    expect((await as(t.app, bob).get(`/api/shelves/${theirs}`)).body).toMatchObject({ book_ids: ids(1), book_count: 1 });
    expect((await as(t.app, bob).get(`/api/shelves/${theirs}/books`)).body).toMatchObject({ total: 1, items: [{ id: id(1) }] });
    expect((await as(t.app, alice).put(`/api/shelves/${mine}/books/${id(2)}`)).body.code).toBe('book_not_found');
  });
});
