import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BookRepository } from '../../src/application/ports.js';
import { PORTS } from '../../src/bootstrap/tokens.js';
import { aBook } from '../support/builders.js';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';
import { as } from '../support/acting-as.js';

let t: TestApp;
let admin: Session;
let alice: Session;
let bob: Session;
let rita: Session;
let bookId: string;
beforeEach(async () => {
  t = await startTestApp();
  admin = await registerUser(t.app, 'admin');
  alice = await registerUser(t.app, 'alice');
  bob = await registerUser(t.app, 'bob');
  rita = await registerUser(t.app, 'rita');
  await request(t.app).patch(`/api/users/${rita.user.id}`).set(bearer(admin.token)).send({ roles: ['reader'] }).expect(200);
  const book = aBook();
  await t.container.di.resolve<BookRepository>(PORTS.BookRepository).create(book);
  bookId = book.id;
});
afterEach(() => t.close());


async function shelfOf(s: Session, body: object): Promise<string> {
  const res = await as(t.app, s).post('/api/shelves', body);
  expect(res.status).toBe(201);
  return res.body.id;
}

/** Every shelf route naming the shelf, as the given session. */
const everyRoute = async (s: Session, id: string) => {
  const calls: [string, request.Test][] = [
    ['GET shelf', as(t.app, s).get(`/api/shelves/${id}`)],
    ['GET books', as(t.app, s).get(`/api/shelves/${id}/books`)],
    ['PATCH name', as(t.app, s).patch(`/api/shelves/${id}`, { name: 'Mine now' })],
    ['PATCH book_ids', as(t.app, s).patch(`/api/shelves/${id}`, { book_ids: [] })],
    ['PUT book', as(t.app, s).put(`/api/shelves/${id}/books/${bookId}`)],
    ['DELETE book', as(t.app, s).del(`/api/shelves/${id}/books/${bookId}`)],
    ['DELETE shelf', as(t.app, s).del(`/api/shelves/${id}`)],
  ];
  return Promise.all(calls.map(async ([label, call]) => ({ label, res: await call })));
};

describe('shelves: who may see and change what', () => {
  it("answers 404 shelf_not_found for another user's private shelf on every route, and changes nothing", async () => {
    const id = await shelfOf(alice, { name: 'Diary', book_ids: [bookId] });
    for (const { label, res } of await everyRoute(bob, id)) {
      expect(res.status, label).toBe(404);
      expect(res.body.code).toBe('shelf_not_found');
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    const own = await as(t.app, alice).get(`/api/shelves/${id}`);
    expect(own.body).toMatchObject({ name: 'Diary', book_ids: [bookId] });
  });

  it('answers an unknown shelf id exactly like a foreign private one', async () => {
    const id = await shelfOf(alice, { name: 'Diary' });
    const foreign = await as(t.app, bob).get(`/api/shelves/${id}`);
    const missing = await as(t.app, bob).get('/api/shelves/no-such-shelf');
    expect(missing.status).toBe(404);
    expect({ ...missing.body, detail: '' }).toEqual({ ...foreign.body, detail: '' });
  });

  it("lets others read a public shelf and its books but answers 403 to every change", async () => {
    const id = await shelfOf(alice, { name: 'Recommended', is_public: true, book_ids: [bookId] });
    expect((await as(t.app, bob).get(`/api/shelves/${id}`)).body).toMatchObject({ id, is_public: true, owner: { id: alice.user.id } });
    expect((await as(t.app, bob).get(`/api/shelves/${id}/books`)).body.items.map((b: { id: string }) => b.id)).toEqual([bookId]);
    for (const { label, res } of (await everyRoute(bob, id)).slice(2)) {
      expect(res.status, label).toBe(403);
      expect(res.body.code).toBe('permission_denied');
    }
    expect((await as(t.app, alice).get(`/api/shelves/${id}`)).body).toMatchObject({ name: 'Recommended', book_ids: [bookId] });
  });

  it('lets a reader read public shelves but not create one (403)', async () => {
    const pub = await shelfOf(alice, { name: 'Open', is_public: true });
    await shelfOf(alice, { name: 'Closed' });
    const list = await as(t.app, rita).get('/api/shelves');
    expect(list.status).toBe(200);
    expect(list.body.items.map((s: { id: string }) => s.id)).toEqual([pub]);
    expect((await as(t.app, rita).get(`/api/shelves/${pub}`)).status).toBe(200);
    const create = await as(t.app, rita).post('/api/shelves', { name: 'Mine' });
    expect(create.status).toBe(403);
    expect(create.body.code).toBe('permission_denied');
    expect((await as(t.app, rita).get('/api/shelves?owner=me')).body.total).toBe(0);
  });

  it("lets an admin change and delete anyone's shelf", async () => {
    const id = await shelfOf(alice, { name: 'Secret' });
    expect((await as(t.app, admin).get(`/api/shelves/${id}`)).status).toBe(200);
    const patched = await as(t.app, admin).patch(`/api/shelves/${id}`, { name: 'Moderated', book_ids: [bookId] });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Moderated', owner: { id: alice.user.id }, book_ids: [bookId] });
    expect((await as(t.app, admin).del(`/api/shelves/${id}/books/${bookId}`)).status).toBe(204);
    expect((await as(t.app, admin).put(`/api/shelves/${id}/books/${bookId}`)).status).toBe(204);
    expect((await as(t.app, admin).del(`/api/shelves/${id}`)).status).toBe(204);
    expect((await as(t.app, alice).get(`/api/shelves/${id}`)).status).toBe(404);
  });

  it('hides a shelf from others on the next request once it is made private', async () => {
    const id = await shelfOf(alice, { name: 'Was public', is_public: true });
    expect((await as(t.app, bob).get(`/api/shelves/${id}`)).status).toBe(200);
    expect((await as(t.app, alice).patch(`/api/shelves/${id}`, { is_public: false })).body.is_public).toBe(false);
    expect((await as(t.app, bob).get(`/api/shelves/${id}`)).status).toBe(404);
    expect((await as(t.app, bob).get(`/api/shelves/${id}/books`)).status).toBe(404);
    expect((await as(t.app, bob).get('/api/shelves')).body.total).toBe(0);
  });

  it('needs a token on every shelf route', async () => {
    const id = await shelfOf(alice, { name: 'x', is_public: true });
    const calls = [
      request(t.app).get('/api/shelves'),
      request(t.app).post('/api/shelves').send({ name: 'y' }),
      request(t.app).get(`/api/shelves/${id}`),
      request(t.app).get(`/api/shelves/${id}/books`),
      request(t.app).put(`/api/shelves/${id}/books/${bookId}`),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('missing_token');
    }
  });
});
