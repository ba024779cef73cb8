import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BookRepository, ShelfRepository } from '../../src/application/ports.js';
import { PORTS } from '../../src/bootstrap/tokens.js';
import type { Book } from '../../src/domain/book.js';
import { aBook } from '../support/builders.js';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';
import { as } from '../support/acting-as.js';

let dir: string;
let t: TestApp;
let alice: Session;
let bob: Session;
let books: Book[];
const ids = (...indexes: number[]) => indexes.map((i) => (books[i] as Book).id);
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'stacks-shelves-'));
  t = await startTestApp({ DATABASE_URL: '', DATA_DIR: dir });
  await registerUser(t.app, 'admin');
  alice = await registerUser(t.app, 'alice');
  bob = await registerUser(t.app, 'bob');
  books = [aBook(), aBook(), aBook()];
  const repo = t.container.di.resolve<BookRepository>(PORTS.BookRepository);
  for (const book of books) await repo.create(book);
});
afterEach(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});


describe('shelves over the embedded SQLite store', () => {
  it('keeps the same rules: 409 per owner, 422 for unknown ids, order, idempotent add, cascade on book delete', async () => {
    const id = (await as(t.app, alice).post('/api/shelves', { name: 'Stack', is_public: true, book_ids: ids(1, 0) }).expect(201)).body.id;
    expect((await as(t.app, alice).post('/api/shelves', { name: 'STACK ' })).body.code).toBe('shelf_name_taken');
    expect((await as(t.app, bob).post('/api/shelves', { name: 'Stack' })).status).toBe(201);
    expect((await as(t.app, alice).patch(`/api/shelves/${id}`, { book_ids: ['ghost'] })).body.errors[0].field).toBe('book_ids.0');
    expect((await as(t.app, alice).patch(`/api/shelves/${id}`, { book_ids: ids(2, 1, 0) })).body.book_ids).toEqual(ids(2, 1, 0));
    expect((await as(t.app, alice).put(`/api/shelves/${id}/books/${ids(1)[0]}`)).status).toBe(204);
    const bookRepo = t.container.di.resolve<BookRepository>(PORTS.BookRepository);
    await bookRepo.delete(ids(1)[0] as string);
    await t.container.di.resolve<ShelfRepository>(PORTS.ShelfRepository).removeBookEverywhere(ids(1)[0] as string, new Date());
    expect((await as(t.app, bob).get(`/api/shelves/${id}`)).body).toMatchObject({ book_ids: ids(2, 0), book_count: 2 });
    const page = await as(t.app, bob).get(`/api/shelves/${id}/books?page=2&page_size=1`);
    expect(page.body).toMatchObject({ total: 2, total_pages: 2, items: [{ id: ids(0)[0] }] });
  });
});
