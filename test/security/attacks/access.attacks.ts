import type { Test } from 'supertest';
import { bearer, type Session } from '../../support/test-app.js';
import { needsCredentials } from '../support/fuzz-checker.js';
import { attack, isProblem, verdict, type Attack, type Seen } from '../support/outcome.js';
import type { World } from '../support/world.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
interface Case {
  readonly path: string;
  readonly body?: object;
  readonly upload?: boolean;
  readonly expect: readonly number[];
  /** The caller acts on its own account or creates its own object; the snapshot may change. */
  readonly own?: boolean;
  readonly as?: (w: World) => Promise<Session>;
}
type Scenario = [variant: string, build: (w: World) => Case];

const PW = 'correct horse battery';
const fresh = (w: World) => w.fresh('acself');

/** B's token against A's objects, for every documented operation (books are one shared library by contract). */
const FOREIGN: Record<string, readonly Scenario[]> = {
  'get /api/auth/me': [['self', () => ({ path: '/api/auth/me', expect: [200], own: true })]],
  'post /api/auth/logout': [['self', () => ({ path: '/api/auth/logout', expect: [204], own: true, as: fresh })]],
  'post /api/auth/oidc/link': [['self', () => ({ path: '/api/auth/oidc/link', body: {}, expect: [404], own: true })]],
  // Unlinking works with single sign-on off; B unlinks only B (nothing linked here: 204 and unchanged).
  'delete /api/auth/oidc/link': [['self', () => ({ path: '/api/auth/oidc/link', body: { current_password: PW }, expect: [204], own: true, as: fresh })]],
  'put /api/auth/password': [['self', () => ({ path: '/api/auth/password', body: { current_password: PW, new_password: 'a new password' }, expect: [204], own: true, as: fresh })]],
  'post /api/auth/keys': [['own-key', () => ({ path: '/api/auth/keys', body: { name: 'B key' }, expect: [201], own: true })],
    ['admin-scope', () => ({ path: '/api/auth/keys', body: { name: 'B admin key', permissions: ['admin:*'] }, expect: [403] })]],
  'get /api/auth/keys': [['self', () => ({ path: '/api/auth/keys', expect: [200] })]],
  'delete /api/auth/keys/{id}': [['alice-key', (w) => ({ path: `/api/auth/keys/${w.ids.aliceKey}`, expect: [404] })]],
  'post /api/auth/kobo': [['own-device', () => ({ path: '/api/auth/kobo', body: { name: 'B kobo' }, expect: [201], own: true })],
    ['alice-private-shelf', (w) => ({ path: '/api/auth/kobo', body: { name: 'B kobo', shelf_ids: [w.ids.alicePrivateShelf] }, expect: [422] })]],
  'get /api/auth/kobo': [['self', () => ({ path: '/api/auth/kobo', expect: [200] })]],
  // A's devices are covered by kobo.attacks.ts (kobo-foreign-device); here an id B does not own.
  'delete /api/auth/kobo/{id}': [['not-own', () => ({ path: '/api/auth/kobo/01jd2x8q4zb6n5k7m9p3r2t1vw', expect: [404] })]],
  'get /api/users/{id}/keys': [['alice', (w) => ({ path: `/api/users/${w.alice.user.id}/keys`, expect: [403] })]],
  'delete /api/users/{id}/keys/{key_id}': [['alice', (w) => ({ path: `/api/users/${w.alice.user.id}/keys/${w.ids.aliceKey}`, expect: [403] })]],
  'get /api/users': [['list', () => ({ path: '/api/users', expect: [403] })]],
  'get /api/users/{id}': [['alice', (w) => ({ path: `/api/users/${w.alice.user.id}`, expect: [403] })]],
  'patch /api/users/{id}': [['alice', (w) => ({ path: `/api/users/${w.alice.user.id}`, body: { disabled: true }, expect: [403] }), ],
    ['self-promote', (w) => ({ path: `/api/users/${w.bob.user.id}`, body: { roles: ['admin'] }, expect: [403] })]],
  'delete /api/users/{id}': [['alice', (w) => ({ path: `/api/users/${w.alice.user.id}`, expect: [403] })]],
  'delete /api/users/{id}/lock': [['alice', (w) => ({ path: `/api/users/${w.alice.user.id}/lock`, expect: [403] })]],
  'delete /api/users/{id}/sso': [['alice', (w) => ({ path: `/api/users/${w.alice.user.id}/sso`, expect: [403] })]],
  'get /api/roles': [['list', () => ({ path: '/api/roles', expect: [403] })]],
  'get /api/books': [['search', () => ({ path: '/api/books?q=Alice', expect: [200] })]],
  'post /api/books': [['own-upload', () => ({ path: '/api/books', upload: true, expect: [201], own: true })]],
  'get /api/books/{id}': [['shared-read', (w) => ({ path: `/api/books/${w.ids.aliceBook}`, expect: [200] })]],
  'patch /api/books/{id}': [['alice-book', (w) => ({ path: `/api/books/${w.ids.aliceBook}`, body: { title: 'pwned' }, expect: [403, 404] })]],
  'delete /api/books/{id}': [['alice-book', (w) => ({ path: `/api/books/${w.ids.aliceBook}`, expect: [403, 404] })]],
  'get /api/books/{id}/file': [['shared-read', (w) => ({ path: `/api/books/${w.ids.aliceBook}/file`, expect: [200] })]],
  'get /api/books/{id}/cover': [['no-cover', (w) => ({ path: `/api/books/${w.ids.aliceBook}/cover`, expect: [404] })]],
  // Progress is per caller: B reads and writes B's own state of A's book (AC-01 progress-is-per-user checks A's stays A's).
  'get /api/books/{id}/progress': [['own-state', (w) => ({ path: `/api/books/${w.ids.aliceBook}/progress`, expect: [200] })]],
  'put /api/books/{id}/progress': [['own-state', (w) => ({ path: `/api/books/${w.ids.aliceBook}/progress`, body: { percentage: 0.5 }, expect: [200], own: true })]],
  'delete /api/books/{id}/progress': [['own-state', (w) => ({ path: `/api/books/${w.ids.aliceBook}/progress`, expect: [204], own: true })]],
  'get /api/shelves': [['list', () => ({ path: '/api/shelves', expect: [200] })], ['owner-me', () => ({ path: '/api/shelves?owner=me', expect: [200] })]],
  'post /api/shelves': [['own-shelf', () => ({ path: '/api/shelves', body: { name: `B shelf ${Date.now()}` }, expect: [201], own: true })]],
  ...shelfRoutes(),
};

function shelfRoutes(): Record<string, readonly Scenario[]> {
  const both = (method: Method, suffix: (w: World) => string, expectPublic: number[], body?: object): Scenario[] => [
    [`${method}-private`, (w: World) => ({ path: `/api/shelves/${w.ids.alicePrivateShelf}${suffix(w)}`, body, expect: [404] })],
    [`${method}-public`, (w: World) => ({ path: `/api/shelves/${w.ids.alicePublicShelf}${suffix(w)}`, body, expect: expectPublic })],
  ];
  return {
    'get /api/shelves/{id}': both('get', () => '', [200]),
    'patch /api/shelves/{id}': both('patch', () => '', [403], { name: 'pwned', is_public: true }),
    'delete /api/shelves/{id}': both('delete', () => '', [403]),
    'get /api/shelves/{id}/books': both('get', () => '/books', [200]),
    'put /api/shelves/{id}/books/{book_id}': both('put', (w) => `/books/${w.ids.bobBook}`, [403]),
    'delete /api/shelves/{id}/books/{book_id}': both('delete', (w) => `/books/${w.ids.aliceBook}`, [403]),
  };
}

/** A reader (books:read, shelves:read) on every write and admin operation: 403 (404 where the object is invisible). */
const READER: Record<string, (w: World) => Case> = {
  'post /api/books': () => ({ path: '/api/books', upload: true, expect: [403] }),
  'patch /api/books/{id}': (w) => ({ path: `/api/books/${w.ids.bobBook}`, body: { title: 'x' }, expect: [403] }),
  'delete /api/books/{id}': (w) => ({ path: `/api/books/${w.ids.bobBook}`, expect: [403] }),
  'post /api/shelves': () => ({ path: '/api/shelves', body: { name: 'reader shelf' }, expect: [403] }),
  'patch /api/shelves/{id}': (w) => ({ path: `/api/shelves/${w.ids.alicePublicShelf}`, body: { name: 'x' }, expect: [403] }),
  'delete /api/shelves/{id}': (w) => ({ path: `/api/shelves/${w.ids.alicePublicShelf}`, expect: [403] }),
  'put /api/shelves/{id}/books/{book_id}': (w) => ({ path: `/api/shelves/${w.ids.alicePublicShelf}/books/${w.ids.bobBook}`, expect: [403] }),
  'delete /api/shelves/{id}/books/{book_id}': (w) => ({ path: `/api/shelves/${w.ids.alicePublicShelf}/books/${w.ids.aliceBook}`, expect: [403] }),
  'get /api/users': () => ({ path: '/api/users', expect: [403] }),
  'get /api/users/{id}': (w) => ({ path: `/api/users/${w.bob.user.id}`, expect: [403] }),
  'patch /api/users/{id}': (w) => ({ path: `/api/users/${w.reader.user.id}`, body: { roles: ['admin'] }, expect: [403] }),
  'delete /api/users/{id}': (w) => ({ path: `/api/users/${w.bob.user.id}`, expect: [403] }),
  'delete /api/users/{id}/lock': (w) => ({ path: `/api/users/${w.bob.user.id}/lock`, expect: [403] }),
  'delete /api/users/{id}/sso': (w) => ({ path: `/api/users/${w.bob.user.id}/sso`, expect: [403] }),
  'get /api/roles': () => ({ path: '/api/roles', expect: [403] }),
  'post /api/auth/keys': () => ({ path: '/api/auth/keys', body: { name: 'writer key', permissions: ['books:read', 'books:write'] }, expect: [403] }),
  'get /api/users/{id}/keys': (w) => ({ path: `/api/users/${w.alice.user.id}/keys`, expect: [403] }),
  'delete /api/users/{id}/keys/{key_id}': (w) => ({ path: `/api/users/${w.alice.user.id}/keys/${w.ids.aliceKey}`, expect: [403] }),
};

function send(w: World, method: Method, c: Case, token: string | null): Test {
  const req = w.api()[method](c.path);
  if (token) req.set(bearer(token));
  if (c.upload) return req.attach('file', Buffer.from(`Matrix upload ${Date.now()} ${Math.random()}\n`), 'matrix.txt');
  return c.body ? req.send(c.body) : req;
}

/** Text that only A's private objects contain. */
const secrets = (w: World) => [w.ids.alicePrivateShelf, 'Alice secret shelf', 'alice@example.test', 'Alice key'];

async function run(w: World, method: Method, c: Case, session: Session) {
  const before = await w.snapshot();
  const res = await send(w, method, c, session.token);
  const after = await w.snapshot();
  // A 404 may echo the id the caller sent; nothing else of A's may appear.
  const leaked = secrets(w).filter((s) => (res.text ?? '').includes(s) && !(res.status === 404 && s === w.ids.alicePrivateShelf));
  const statusOk = c.expect.includes(res.status) && (res.status < 400 || isProblem(res, res.status));
  return verdict(res, statusOk && leaked.length === 0 && (c.own || before === after), leaked.length ? `leaked ${leaked.join(', ')}` : '');
}

const operations = (doc: { paths: Record<string, Record<string, unknown>> }) =>
  Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method: method as Method, path, secured: needsCredentials(op as { security?: unknown }) })));

/** The AC matrix generated from the OpenAPI document: every secured operation x {anonymous, another user, a reader}. */
export function accessAttacks(doc: { paths: Record<string, Record<string, unknown>> }): Attack[] {
  const out: Attack[] = [];
  for (const op of operations(doc).filter((o) => o.secured)) {
    const key = `${op.method} ${op.path}`;
    out.push(attack('AC-02', `anonymous.${key}`, `${key} without a token: 401`, async (w) => {
      const c = (FOREIGN[key]?.[0]?.[1] ?? (() => ({ path: op.path.replace(/\{\w+\}/g, 'x'), expect: [] })))(w);
      const res = await send(w, op.method, c, null);
      return verdict(res, isProblem(res, 401) && res.body.code === 'missing_token');
    }));
    const scenarios = FOREIGN[key];
    if (!scenarios) {
      out.push(attack('AC-01', `unmapped.${key}`, `${key} has no row in the matrix`, async () => verdict({ status: 0, headers: {} }, false, 'add it to FOREIGN')));
    }
    for (const [variant, build] of scenarios ?? []) {
      out.push(attack('AC-01', `foreign.${key}.${variant}`, `${key} by B on A's objects (${variant})`, async (w) => {
        const c = build(w);
        return run(w, op.method, c, c.as ? await c.as(w) : w.bob);
      }));
    }
    const asReader = READER[key];
    if (asReader) out.push(attack('AC-02', `reader.${key}`, `${key} by a reader: 403`, async (w) => run(w, op.method, asReader(w), w.reader)));
  }
  return [...out, ...extraAccessAttacks];
}

const extraAccessAttacks: Attack[] = [
  attack('AC-01', 'progress-is-per-user', "B neither sees, lists by, nor clears A's reading progress", async (w) => {
    const path = `/api/books/${w.ids.aliceBook}/progress`;
    const secret = `alice-secret-locator-${Date.now()}`;
    await w.api().put(path).set(bearer(w.alice.token)).send({ percentage: 0.5, locator: secret }).expect(200);
    const read = await w.api().get(path).set(bearer(w.bob.token));
    const listed = await w.api().get('/api/books?status=reading&page_size=100').set(bearer(w.bob.token));
    const cleared = await w.api().delete(path).set(bearer(w.bob.token));
    const still = await w.api().get(path).set(bearer(w.alice.token));
    const seen = [read, listed, cleared, still];
    return verdict(seen, read.status === 200 && read.body.status === 'unread' && !read.text.includes(secret)
      && !listed.text.includes(w.ids.aliceBook) && cleared.status === 204 && still.body.locator === secret);
  }),
  attack('AC-01', 'shelf-list-hides-private', "B's shelf list and search hold none of A's private ids", async (w) => {
    const seen = [await w.api().get('/api/shelves?page_size=100').set(bearer(w.bob.token)),
      await w.api().get('/api/books?q=secret').set(bearer(w.bob.token))];
    return verdict(seen, seen.every((r) => r.status === 200 && !r.text.includes(w.ids.alicePrivateShelf)));
  }),
  attack('AC-01', 'shelf-id-in-query', "A's private shelf id smuggled into the book list query", async (w) => {
    const res = await w.api().get(`/api/books?shelf_id=${w.ids.alicePrivateShelf}`).set(bearer(w.bob.token));
    return verdict(res, isProblem(res, [404, 422]));
  }),
  attack('AC-01', 'own-shelf-lists-foreign-private', "B creates a shelf naming A's private shelf id as a book", async (w) => {
    const res = await w.api().post('/api/shelves').set(bearer(w.bob.token)).send({ name: `smuggle ${Date.now()}`, book_ids: [w.ids.alicePrivateShelf] });
    return verdict(res, isProblem(res, [404, 422]));
  }),
  attack('AC-02', 'method-override', 'GET with X-HTTP-Method-Override: DELETE deletes nothing', async (w) => {
    const res = await w.api().get(`/api/books/${w.ids.bobBook}`).set(bearer(w.bob.token)).set('X-HTTP-Method-Override', 'DELETE')
      .set('X-Method-Override', 'DELETE');
    const still = await w.api().get(`/api/books/${w.ids.bobBook}`).set(bearer(w.admin.token));
    return verdict([res, still], res.status === 200 && still.status === 200);
  }),
  attack('AC-02', 'method-override-query', 'POST ?_method=DELETE on a shelf deletes nothing', async (w) => {
    const res = await w.api().post(`/api/shelves/${w.ids.bobShelf}?_method=DELETE`).set(bearer(w.bob.token));
    const still = await w.api().get(`/api/shelves/${w.ids.bobShelf}`).set(bearer(w.bob.token));
    return verdict([res, still], isProblem(res, [404, 405]) && still.status === 200);
  }),
  attack('AC-03', 'register-extras', 'register with permissions, roles and isAdmin', async (w) => {
    const res = await w.api().post('/api/auth/register').send({ username: `mass${Date.now()}`, email: `mass${Date.now()}@example.test`,
      password: PW, permissions: ['admin:*'], roles: ['admin'], isAdmin: true });
    return verdict(res, isProblem(res, 422));
  }),
  ...([['owner', { owner: { id: 'x' } }], ['uploaded_by', { uploaded_by: { id: 'x' } }], ['sha256', { sha256: '0'.repeat(64) }],
    ['file_name', { file_name: '../../x' }], ['id', { id: 'other' }], ['created_at', { created_at: '2000-01-01T00:00:00Z' }]] as const)
    .map(([field, body]) => attack('AC-03', `book-${field}`, `PATCH a book with ${field}`, async (w) => {
      const before = await w.snapshot();
      const res = await w.api().patch(`/api/books/${w.ids.bobBook}`).set(bearer(w.bob.token)).send(body);
      return verdict(res, isProblem(res, 422) && before === await w.snapshot());
    })),
  attack('AC-03', 'shelf-owner', 'PATCH a shelf with owner', async (w) => {
    const res = await w.api().patch(`/api/shelves/${w.ids.bobShelf}`).set(bearer(w.bob.token)).send({ owner: { id: w.alice.user.id } });
    return verdict(res, isProblem(res, 422));
  }),
  ...(['{"__proto__":{"isAdmin":true},"name":"p1"}', '{"constructor":{"prototype":{"isAdmin":true}},"name":"p2"}'].map((raw, i) =>
    attack('AC-03', `proto-pollution-${i}`, `a body with ${i ? 'constructor.prototype' : '__proto__'}`, async (w) => {
      const res = await w.api().post('/api/shelves').set(bearer(w.bob.token)).set('Content-Type', 'application/json').send(raw);
      const me = await w.api().get('/api/users').set(bearer(w.bob.token));
      return verdict([res, me], isProblem(res, 422) && me.status === 403 && ({} as Record<string, unknown>).isAdmin === undefined);
    }))),
  attack('AC-04', 'no-internal-fields', 'no response body carries hashes, token versions, secrets or server paths', async (w) => {
    const seen: Seen[] = [];
    for (const p of ['/api/auth/me', '/api/users', `/api/users/${w.alice.user.id}`, '/api/books', `/api/books/${w.ids.aliceBook}`,
      '/api/shelves', `/api/shelves/${w.ids.alicePublicShelf}`, `/api/shelves/${w.ids.alicePublicShelf}/books`]) {
      seen.push(await w.api().get(p).set(bearer(w.admin.token)));
    }
    const bad = /"[^"]*(hash|salt|password|secret|token_?version|tv)"\s*:|"\/(var|home|tmp)\//i;
    return verdict(seen, seen.every((r) => r.status === 200 && !bad.test(r.text ?? '') && !(r.text ?? '').includes(w.dataDir)));
  }),
  attack('AC-06', 'public-shelf-fields', "B reads A's public shelf: no e-mail, no path; private again is 404 at once", async (w) => {
    const mine = await w.api().post('/api/shelves').set(bearer(w.alice.token)).send({ name: `flip ${Date.now()}`, is_public: true, book_ids: [w.ids.aliceBook] });
    const read = await w.api().get(`/api/shelves/${mine.body.id}`).set(bearer(w.bob.token));
    const books = await w.api().get(`/api/shelves/${mine.body.id}/books`).set(bearer(w.bob.token));
    await w.api().patch(`/api/shelves/${mine.body.id}`).set(bearer(w.alice.token)).send({ is_public: false }).expect(200);
    const gone = await w.api().get(`/api/shelves/${mine.body.id}`).set(bearer(w.bob.token));
    const clean = ![read.text, books.text].some((t) => t.includes('alice@example.test') || t.includes(w.dataDir));
    return verdict([read, books, gone], read.status === 200 && books.status === 200 && clean && isProblem(gone, 404));
  }),
  attack('AC-07', 'guessed-ids', "20 ids shaped like real ones give 404 on shelves and books", async (w) => {
    const seen: Seen[] = [];
    const shape = w.ids.alicePrivateShelf;
    for (let i = 0; i < 10; i++) {
      const guess = shape.slice(0, -2) + i.toString(36).padStart(2, 'a');
      seen.push(await w.api().get(`/api/shelves/${guess}`).set(bearer(w.bob.token)));
      seen.push(await w.api().get(`/api/books/${guess}`).set(bearer(w.bob.token)));
    }
    return verdict(seen, seen.every((r) => isProblem(r, 404)));
  }),
];
