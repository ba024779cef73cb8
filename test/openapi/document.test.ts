import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/adapters/http/app.js';
import type { AnyRoute } from '../../src/adapters/http/route.js';
import { httpDepsFrom } from '../../src/bootstrap/http.js';
import { servedOpenApi, type OpenApiDocument } from '../support/served-openapi.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

interface Operation {
  readonly operationId?: string;
  readonly security?: readonly Record<string, unknown>[];
  readonly tags?: readonly string[];
}

const METHODS = new Set(['get', 'put', 'post', 'patch', 'delete', 'head', 'options', 'trace']);
const CAMEL_CASE = /^[a-z][a-zA-Z0-9]*$/;
const operationsOf = (doc: OpenApiDocument) => Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item)
  .filter(([method]) => METHODS.has(method)).map(([method, op]) => ({ key: `${method.toUpperCase()} ${path}`, op: op as Operation })));
const keyOf = (r: AnyRoute) => `${r.method.toUpperCase()} ${r.path}`;

/** Client method names that the examples in docs/ and users' generated clients call: each keeps its operation. */
const NAMED = {
  listBooks: 'GET /api/books', getBook: 'GET /api/books/{id}', uploadBook: 'POST /api/books', updateBook: 'PATCH /api/books/{id}',
  deleteBook: 'DELETE /api/books/{id}', downloadBookFile: 'GET /api/books/{id}/file', getBookCover: 'GET /api/books/{id}/cover',
  getProgress: 'GET /api/books/{id}/progress', updateProgress: 'PUT /api/books/{id}/progress', deleteProgress: 'DELETE /api/books/{id}/progress',
  createApiKey: 'POST /api/auth/keys', listApiKeys: 'GET /api/auth/keys', revokeApiKey: 'DELETE /api/auth/keys/{id}',
  register: 'POST /api/auth/register', login: 'POST /api/auth/login', logout: 'POST /api/auth/logout', getCurrentUser: 'GET /api/auth/me',
  changePassword: 'PUT /api/auth/password', getAuthConfig: 'GET /api/auth/config', listShelves: 'GET /api/shelves', createShelf: 'POST /api/shelves',
  addBookToShelf: 'PUT /api/shelves/{id}/books/{book_id}', listUsers: 'GET /api/users', checkReadiness: 'GET /readyz',
};

describe('operationIds over the real route table', () => {
  let t: TestApp;
  let routes: readonly AnyRoute[];
  beforeAll(async () => {
    t = await startTestApp();
    routes = httpDepsFrom(t.container).routes;
  });
  afterAll(async () => t?.close());

  it('every route declares a camelCase operationId, and no two share one', () => {
    const ids = routes.map((r) => r.operationId);
    expect(ids.filter((id) => typeof id !== 'string' || !CAMEL_CASE.test(id))).toEqual([]);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it('keeps the client method names users call', () => {
    const table = Object.fromEntries(routes.map((r) => [r.operationId, keyOf(r)]));
    expect(Object.fromEntries(Object.keys(NAMED).map((id) => [id, table[id]]))).toEqual(NAMED);
  });

  it('createApp refuses a table that repeats an operationId or names one a client method cannot carry', () => {
    const deps = httpDepsFrom(t.container);
    const [first, second] = deps.routes as [AnyRoute, AnyRoute];
    const withRoutes = (extra: AnyRoute[]) => () => createApp({ ...deps, routes: [...deps.routes, ...extra] });
    expect(withRoutes([{ ...second, path: '/api/elsewhere', operationId: first.operationId }]))
      .toThrow(`GET /api/elsewhere: operationId '${first.operationId}' already names ${keyOf(first)}`);
    expect(withRoutes([{ ...second, path: '/api/elsewhere', operationId: 'list_books' }])).toThrow("operationId 'list_books' is not camelCase");
    expect(withRoutes([{ ...second, path: '/api/elsewhere', operationId: undefined as unknown as string }])).toThrow("operationId 'undefined' is not camelCase");
  });
});

describe('the served /openapi.json, as generators read it', () => {
  let t: TestApp;
  let doc: OpenApiDocument;
  beforeAll(async () => {
    t = await startTestApp();
    doc = await servedOpenApi();
  });
  afterAll(async () => t?.close());

  it('gives every operation the operationId its route declares, each once', () => {
    const declared = Object.fromEntries(httpDepsFrom(t.container).routes.map((r) => [keyOf(r), r.operationId]));
    const served = Object.fromEntries(operationsOf(doc).map(({ key, op }) => [key, op.operationId]));
    expect(served).toEqual(declared);
    const ids = Object.values(served);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('says `security: []` on every public operation and the bearer scheme on every other', () => {
    const publicRoutes = new Set(httpDepsFrom(t.container).routes.filter((r) => !r.auth).map(keyOf));
    expect([...publicRoutes].sort()).toEqual([
      'GET /api/auth/config', 'GET /api/auth/oidc/callback', 'GET /api/auth/oidc/login', 'GET /healthz', 'GET /readyz',
      'POST /api/auth/login', 'POST /api/auth/oidc/token', 'POST /api/auth/register',
    ]);
    for (const { key, op } of operationsOf(doc)) expect(op.security, key).toEqual(publicRoutes.has(key) ? [] : [{ bearerAuth: [] }]);
  });

  it('names its license as package.json does', () => {
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8')) as { license: string };
    expect(doc.info.license).toEqual({ name: pkg.license, identifier: pkg.license });
  });

  it('declares, with a description, each tag an operation names', () => {
    const used = new Set(operationsOf(doc).flatMap(({ op }) => op.tags ?? []));
    expect(doc.tags?.map((tag) => tag.name).sort()).toEqual([...used].sort());
    expect(doc.tags?.filter((tag) => !tag.description?.trim())).toEqual([]);
  });

  it.each([
    [{ PUBLIC_URL: 'https://books.example.org/library/' }, 'https://books.example.org/library'],
    [{ PORT: '9123' }, 'http://localhost:9123'],
  ])('points `servers` at PUBLIC_URL (%j)', async (env, url) => {
    expect((await servedOpenApi(env)).servers).toEqual([{ url, description: 'This Stacks instance (PUBLIC_URL)' }]);
  });
});
