import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TYPES_PATH, generateApiTypes, REGENERATE } from '../support/api-types-generator.js';
import type { components, paths } from '../support/api-types.js';
import { buildEpub } from '../support/fixtures/index.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

type BookUpload = components['schemas']['BookUpload'];

describe('the client types generated from /openapi.json', () => {
  it('match the committed test/support/api-types.ts (the document has not drifted)', async () => {
    const generated = await generateApiTypes();
    expect(generated === readFileSync(API_TYPES_PATH, 'utf8'), `the API changed: regenerate the client types with \`${REGENERATE}\``).toBe(true);
  });
});

describe('a full scenario through the generated, typed client (openapi-fetch)', () => {
  let t: TestApp;
  let server: Server;
  let baseUrl: string;
  beforeAll(async () => {
    t = await startTestApp();
    server = createServer(t.app);
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((done) => server?.close(done));
    await t?.close();
  });

  it('register, login, me, upload, list, search, get, patch, download, shelve, delete, logout', async () => {
    const client = createClient<paths>({ baseUrl });
    let token: string | null = null;
    client.use({ onRequest: ({ request }) => (token ? (request.headers.set('Authorization', `Bearer ${token}`), request) : request) });
    const password = 'correct horse battery';

    const registered = await client.POST('/api/auth/register', { body: { username: 'typed', email: 'typed@example.test', password } });
    expect(registered.response.status).toBe(201);
    const login = await client.POST('/api/auth/login', { body: { username: 'typed@example.test', password } });
    expect(login.data?.token_type).toBe('bearer');
    token = login.data?.access_token ?? null;
    const me = await client.GET('/api/auth/me');
    expect(me.data).toMatchObject({ username: 'typed', roles: ['admin'] });

    const epub = await buildEpub({ title: 'Typed Book' });
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(epub)], { type: 'application/epub+zip' }), 'typed.epub');
    form.append('tags', 'typed, client');
    const uploaded = await client.POST('/api/books', { body: form as unknown as BookUpload, bodySerializer: (body) => body as unknown as FormData });
    expect(uploaded.response.status, JSON.stringify(uploaded.error)).toBe(201);
    const book = uploaded.data!;
    expect(uploaded.response.headers.get('location')).toBe(`/api/books/${book.id}`);
    expect(book).toMatchObject({ title: 'Typed Book', format: 'epub', tags: ['typed', 'client'], file_size: epub.length, has_cover: true });

    const list = await client.GET('/api/books', { params: { query: { page: 1, page_size: 10 } } });
    expect(list.data).toMatchObject({ total: 1, page: 1, page_size: 10, total_pages: 1 });
    const search = await client.GET('/api/books', { params: { query: { q: 'TYPED', sort: 'title' } } });
    expect(search.data?.items.map((b) => b.id)).toEqual([book.id]);
    expect((await client.GET('/api/books', { params: { query: { q: 'absent' } } })).data?.total).toBe(0);
    const got = await client.GET('/api/books/{id}', { params: { path: { id: book.id } } });
    expect(got.data?.sha256).toBe(book.sha256);
    const patched = await client.PATCH('/api/books/{id}', { params: { path: { id: book.id } }, body: { title: 'Renamed', series_index: 2 } });
    expect(patched.data).toMatchObject({ title: 'Renamed', series_index: 2 });

    const file = await client.GET('/api/books/{id}/file', { params: { path: { id: book.id } }, parseAs: 'arrayBuffer' });
    expect(file.response.headers.get('content-type')).toBe('application/epub+zip');
    expect(Buffer.compare(Buffer.from(file.data as ArrayBuffer), epub)).toBe(0);

    const shelf = await client.POST('/api/shelves', { body: { name: 'Typed shelf', is_public: false } });
    expect(shelf.response.status).toBe(201);
    const shelfId = shelf.data!.id;
    const added = await client.PUT('/api/shelves/{id}/books/{book_id}', { params: { path: { id: shelfId, book_id: book.id } } });
    expect(added.response.status).toBe(204);
    const onShelf = await client.GET('/api/shelves/{id}/books', { params: { path: { id: shelfId } } });
    expect(onShelf.data?.items.map((b) => b.title)).toEqual(['Renamed']);

    expect((await client.DELETE('/api/books/{id}', { params: { path: { id: book.id } } })).response.status).toBe(204);
    expect((await client.GET('/api/books/{id}', { params: { path: { id: book.id } } })).error).toMatchObject({ status: 404, code: 'book_not_found' });
    const emptied = await client.GET('/api/shelves/{id}', { params: { path: { id: shelfId } } });
    expect(emptied.data).toMatchObject({ book_count: 0, book_ids: [] });
    expect((await client.GET('/api/shelves/{id}/books', { params: { path: { id: shelfId } } })).data?.total).toBe(0);

    expect((await client.POST('/api/auth/logout')).response.status).toBe(204);
    const after = await client.GET('/api/auth/me');
    expect(after.response.status).toBe(401);
    expect(after.error).toMatchObject({ code: 'invalid_token' });
  });
});
