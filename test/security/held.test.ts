import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSqliteDriver } from '../../src/adapters/sqlite/sqlite-driver.js';
import { Authenticate, AuthenticateKoboDevice, AuthenticateSyncUser } from '../../src/index.js';
import type { UserRepository } from '../../src/application/ports.js';
import { httpDepsFrom } from '../../src/bootstrap/http.js';
import { PORTS } from '../../src/bootstrap/tokens.js';
import { storedFiles, upload } from '../support/books.js';
import { buildEpub } from '../support/fixtures/index.js';
import { koreaderHeaders } from '../support/koreader.js';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';
import { holdRequest } from './support/held-request.js';
import { filePart, multipart, multipartType } from './support/multipart.js';
import { closeServer, listen, WORLD_LOGIN_POLICIES } from './support/world.js';

/**
 * Authority is judged when the write commits (API.md, "Authority, timing and input rules"). Every
 * route that takes a body is sent its headers and its first 5 bytes; once the server has authenticated
 * it, the account (or key) changes; then the rest of the body arrives. The answer must be the one a
 * request made after the change gets (401, or 403 when only permissions shrank) and the store must be
 * exactly as the change left it. Prints `HELD: N held-body writes tried, 0 committed after revocation`.
 */
const PW = 'correct horse battery';

interface Scene {
  readonly writer: Session;
  /** A second session of the writer (its password change revokes the held one). */
  readonly second: Session;
  readonly bookId: string;
  readonly shelfId: string;
  readonly key: { id: string; secret: string };
}

interface HeldCase {
  /** Made as an admin: the writer is promoted first, and a demotion takes it back to `user`. */
  readonly admin?: boolean;
  /** Also sent through the writer's API key. */
  readonly byKey?: boolean;
  /** Only through a key (KOReader sync). */
  readonly keyOnly?: boolean;
  /** A demotion to `reader` still allows it (it needs books:read only, or no permission at all). */
  readonly readerMay?: boolean;
  readonly path?: (s: Scene) => string;
  /** The JSON body; absent for the multipart upload. */
  readonly body?: (s: Scene) => object;
  /** The writer's account has a single sign-on identity linked. */
  readonly linked?: boolean;
}

/** Every route that takes a body, by `method path` as declared, with what the held request sends. */
const CASES: Readonly<Record<string, HeldCase>> = {
  'put /api/auth/password': { readerMay: true, body: () => ({ current_password: PW, new_password: 'another long passphrase' }) },
  'post /api/auth/keys': { body: () => ({ name: 'held key', permissions: ['books:write'] }) },
  'post /api/auth/kobo': { readerMay: true, body: () => ({ name: 'Held Kobo' }) },
  'patch /api/users/{id}': { admin: true, path: (s) => `/api/users/${s.writer.user.id}`, body: () => ({ roles: ['admin'], disabled: false }) },
  'post /api/books': { byKey: true },
  'patch /api/books/{id}': { byKey: true, path: (s) => `/api/books/${s.bookId}`, body: () => ({ title: 'Held title' }) },
  'put /api/books/{id}/progress': { byKey: true, readerMay: true, path: (s) => `/api/books/${s.bookId}/progress`, body: () => ({ percentage: 0.5 }) },
  'post /api/shelves': { byKey: true, body: () => ({ name: 'Held shelf' }) },
  'patch /api/shelves/{id}': { byKey: true, path: (s) => `/api/shelves/${s.shelfId}`, body: (s) => ({ name: 'Held rename', book_ids: [s.bookId] }) },
  'delete /api/auth/oidc/link': { linked: true, readerMay: true, body: () => ({ current_password: PW }) },
  'put /kosync/syncs/progress': {
    keyOnly: true, readerMay: true,
    body: () => ({ document: 'c'.repeat(32), progress: '/body/p[9]', percentage: 0.9, device: 'Kobo', device_id: 'held' }),
  },
};
/** Body routes a held request cannot reach here, and where they are covered instead. */
const ELSEWHERE: Readonly<Record<string, string>> = {
  'post /api/auth/register': 'no credential to revoke',
  'post /api/auth/login': 'no credential to revoke',
  'post /api/auth/oidc/token': 'no credential to revoke',
  'post /api/auth/oidc/link': 'single sign-on is off here: test/integration/oidc/sso-linking.test.ts holds it against a real provider',
};

interface Change {
  readonly name: string;
  /** 401, or 403 when only permissions shrank (KOReader hears every refusal as 401). */
  readonly status: 401 | 403;
  readonly through: 'session' | 'key';
  apply(s: Scene, c: HeldCase): Promise<unknown>;
}

let t: TestApp;
let server: Server;
let url: string;
let dataDir: string;
let root: Session;
const tried: { id: string; committed: boolean }[] = [];
/** Resolvers waiting for the server to have authenticated a credential (a bearer, or a KOReader key MD5). */
const authenticated = new Map<string, () => void>();

const api = () => request(server);
const CHANGES: readonly Change[] = [
  { name: 'its token was logged out', status: 401, through: 'session', apply: (s) => api().post('/api/auth/logout').set(bearer(s.writer.token)).expect(204) },
  {
    name: 'its owner changed the password', status: 401, through: 'session',
    apply: (s) => api().put('/api/auth/password').set(bearer(s.second.token)).send({ current_password: PW, new_password: 'changed by the owner' }).expect(204),
  },
  { name: 'an admin disabled the account', status: 401, through: 'session', apply: (s) => admin('patch', s, { disabled: true }) },
  { name: 'an admin deleted the account', status: 401, through: 'session', apply: (s) => api().delete(`/api/users/${s.writer.user.id}`).set(bearer(root.token)).expect(204) },
  { name: 'an admin demoted and disabled it at once', status: 401, through: 'session', apply: (s, c) => admin('patch', s, { roles: [c.admin ? 'user' : 'reader'], disabled: true }) },
  { name: 'an admin demoted it', status: 403, through: 'session', apply: (s, c) => admin('patch', s, { roles: [c.admin ? 'user' : 'reader'] }) },
  { name: 'its key was revoked', status: 401, through: 'key', apply: (s) => api().delete(`/api/auth/keys/${s.key.id}`).set(bearer(s.second.token)).expect(204) },
  {
    name: "the key owner's password changed", status: 401, through: 'key',
    apply: (s) => api().put('/api/auth/password').set(bearer(s.second.token)).send({ current_password: PW, new_password: 'changed by the owner' }).expect(204),
  },
  { name: 'an admin disabled the key owner', status: 401, through: 'key', apply: (s) => admin('patch', s, { disabled: true }) },
  { name: 'an admin demoted the key owner', status: 403, through: 'key', apply: (s) => admin('patch', s, { roles: ['reader'] }) },
];

const admin = (_method: 'patch', s: Scene, body: object) => api().patch(`/api/users/${s.writer.user.id}`).set(bearer(root.token)).send(body).expect(200);

let count = 0;
async function scene(c: HeldCase): Promise<Scene> {
  count += 1;
  const registered = await registerUser(t.app, `held${count}`, PW);
  if (c.admin) await admin('patch', { writer: registered } as Scene, { roles: ['admin'] });
  // Linking ends the account's sessions: sign in again after it.
  if (c.linked) await t.container.di.resolve<UserRepository>(PORTS.UserRepository).linkOidcIdentity(registered.user.id, { issuer: 'https://idp.test', subject: `held-${count}` }, new Date());
  const signIn = async () => (await request(t.app).post('/api/auth/login').send({ username: registered.user.username, password: PW })).body.access_token as string;
  const writer = c.linked ? { ...registered, token: await signIn() } : registered;
  const second = { ...writer, token: await signIn() };
  // An EPUB: a book a Kobo gets (a .txt book's Kobo state is a 404, as an unknown book's).
  const book = await upload(t.app, writer, await buildEpub({ title: `Held book ${count}` }), `Held - Book ${count}.epub`);
  const shelf = await request(t.app).post('/api/shelves').set(bearer(writer.token)).send({ name: 'Mine', book_ids: [book.body.id] });
  await request(t.app).put(`/api/books/${book.body.id}/progress`).set(bearer(writer.token)).send({ percentage: 0.1 });
  const key = await request(t.app).post('/api/auth/keys').set(bearer(writer.token)).send({ name: 'held' });
  return { writer, second, bookId: book.body.id, shelfId: shelf.body.id, key: { id: key.body.id, secret: key.body.key } };
}

const TRANSIENT = new Set(['login_throttle', 'token_revocations', 'one_time_codes', 'schema_migrations']);

/** Every row of every table a write could change, and the stored files (not the upload staging area). */
async function snapshot(): Promise<string> {
  const db = new (loadSqliteDriver())(join(dataDir, 'stacks.db'), { readonly: true });
  try {
    const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[]).filter((n) => !TRANSIENT.has(n));
    const rows = Object.fromEntries(tables.map((name) => [name, db.prepare(`SELECT * FROM "${name}"`).all().map((r) => JSON.stringify(r)).sort()]));
    return JSON.stringify({ rows, files: (await storedFiles(t)).books });
  } finally {
    db.close();
  }
}

function authenticationOf(credential: string): Promise<void> {
  return new Promise((resolve) => authenticated.set(credential, resolve));
}

/** Watches the two authenticators the routes use, to learn when a held request has been let in. */
function observe<A extends unknown[]>(target: { execute(...args: A): Promise<unknown> }, credentialOf: (...args: A) => string): void {
  const original = target.execute.bind(target);
  target.execute = async (...args: A) => {
    const result = await original(...args);
    const credential = credentialOf(...args);
    authenticated.get(credential)?.();
    authenticated.delete(credential);
    return result;
  };
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'stacks-held-'));
  t = await startTestApp({ DATABASE_URL: '', DATA_DIR: dataDir, RATE_LIMIT_PER_MINUTE: '0', REGISTER_LIMIT_PER_HOUR: '0' }, { loginPolicies: WORLD_LOGIN_POLICIES });
  observe(t.container.di.resolve(Authenticate), (token: string | undefined) => token ?? '');
  observe(t.container.di.resolve(AuthenticateSyncUser), (credentials: { keyMd5: string }, _address: string) => credentials.keyMd5);
  observe(t.container.di.resolve(AuthenticateKoboDevice), (credentials: { secret: string }) => credentials.secret);
  ({ server, url } = await listen(t));
  root = await registerUser(t.app, 'heldroot', PW);
}, 60_000);

afterAll(async () => {
  console.log(`HELD: ${tried.length} held-body writes tried, ${tried.filter((c) => c.committed).length} committed after revocation`);
  await closeServer(server);
  await t.close();
  await rm(dataDir, { recursive: true, force: true });
});

const declared = () => [
  ...httpDepsFrom(t.container).routes.filter((r) => r.body || r.rawBody).map((r) => `${r.method} ${r.path}`),
  'put /kosync/syncs/progress',
];

/** The request as the case sends it through the session or the key. */
function held(routeId: string, c: HeldCase, s: Scene, through: 'session' | 'key') {
  const [method = '', template = ''] = routeId.split(' ');
  const path = c.path?.(s) ?? template;
  const auth: Record<string, string> = c.keyOnly
    ? koreaderHeaders(s.writer.user.username, s.key.secret)
    : { Authorization: `Bearer ${through === 'key' ? s.key.secret : s.writer.token}` };
  const credential = c.keyOnly ? (auth['x-auth-key'] as string) : (auth['Authorization'] as string).slice('Bearer '.length);
  if (c.body) {
    return { credential, open: () => holdRequest(url, method, path, { ...auth, 'Content-Type': 'application/json' }, Buffer.from(JSON.stringify(c.body!(s)))) };
  }
  const body = multipart([filePart('Held - Upload.txt', `a held upload ${s.writer.user.id}\n`.repeat(200))]);
  // Held in the middle of the file part.
  return { credential, open: () => holdRequest(url, method, path, { ...auth, 'Content-Type': multipartType() }, body, 700) };
}

describe('held bodies: authority judged when the write commits', () => {
  it('has a held case for every route that takes a body', () => {
    expect(declared().filter((id) => !(id in CASES) && !(id in ELSEWHERE))).toEqual([]);
    expect(Object.keys(CASES).filter((id) => !declared().includes(id))).toEqual([]);
  });

  for (const [routeId, c] of Object.entries(CASES)) {
    for (const change of CHANGES) {
      const through = change.through;
      if (through === 'key' && !c.byKey && !c.keyOnly) continue;
      if (through === 'session' && c.keyOnly) continue;
      if (change.status === 403 && c.readerMay) continue;
      const id = `${routeId} through ${through === 'key' ? (c.keyOnly ? 'a KOReader key' : 'an API key') : 'a session'}, held while ${change.name}`;
      it(`${id}: ${c.keyOnly ? 401 : change.status}, nothing written`, async () => {
        const s = await scene(c);
        const { credential, open } = held(routeId, c, s, through);
        const letIn = authenticationOf(credential);
        const request = await open();
        await letIn;
        await change.apply(s, c);
        const before = await snapshot();
        const answer = await request.finish();
        const committed = (await snapshot()) !== before;
        tried.push({ id, committed });
        expect({ status: answer.status, committed }, JSON.stringify(answer.body)).toEqual({ status: c.keyOnly ? 401 : change.status, committed: false });
      }, 30_000);
    }
  }
});

describe('a held upload of a file already in the library: the change answers, not duplicate_book', () => {
  for (const change of CHANGES) {
    const id = `post /api/books of a stored file through ${change.through === 'key' ? 'an API key' : 'a session'}, held while ${change.name}`;
    it(`${id}: ${change.status}, no book named, nothing written`, async () => {
      const s = await scene({});
      const secret = change.through === 'key' ? s.key.secret : s.writer.token;
      const body = multipart([filePart('Held - Again.txt', `Held book ${count}\n`)]);
      const letIn = authenticationOf(secret);
      const request = await holdRequest(url, 'post', '/api/books', { Authorization: `Bearer ${secret}`, 'Content-Type': multipartType() }, body);
      await letIn;
      await change.apply(s, {});
      const before = await snapshot();
      const answer = await request.finish();
      const committed = (await snapshot()) !== before;
      tried.push({ id, committed });
      expect({ status: answer.status, committed, names: JSON.stringify(answer.body).includes(s.bookId) }, JSON.stringify(answer.body))
        .toEqual({ status: change.status, committed: false, names: false });
    }, 30_000);
  }
});

/** The Kobo store API writes through its sync URL: each held while the URL stops working. */
const KOBO_WRITES: Readonly<Record<string, { method: string; path: (s: Scene) => string; body: (s: Scene) => object }>> = {
  'PUT {url}/v1/library/{id}/state': {
    method: 'PUT', path: (s) => `/v1/library/${s.bookId}/state`,
    body: () => ({ ReadingStates: [{ CurrentBookmark: { ProgressPercent: 70 }, StatusInfo: { Status: 'Reading' } }] }),
  },
  'POST {url}/v1/library/tags': { method: 'POST', path: () => '/v1/library/tags', body: (s) => ({ Name: 'Held tag', Items: [{ Type: 'ProductRevisionTagItem', RevisionId: s.bookId }] }) },
  'PUT {url}/v1/library/tags/{id}': { method: 'PUT', path: (s) => `/v1/library/tags/${s.shelfId}`, body: () => ({ Name: 'Held rename' }) },
  'POST {url}/v1/library/tags/{id}/items/delete': {
    method: 'POST', path: (s) => `/v1/library/tags/${s.shelfId}/items/delete`, body: (s) => ({ Items: [{ Type: 'ProductRevisionTagItem', RevisionId: s.bookId }] }),
  },
};

const KOBO_CHANGES: ReadonlyArray<{ name: string; apply(s: Scene, deviceId: string): Promise<unknown> }> = [
  { name: 'its device was removed', apply: (s, deviceId) => api().delete(`/api/auth/kobo/${deviceId}`).set(bearer(s.second.token)).expect(204) },
  { name: "its owner's password changed", apply: (s) => CHANGES[1]!.apply(s, {}) },
  { name: 'an admin disabled its owner', apply: (s) => admin('patch', s, { disabled: true }) },
];

describe('held Kobo bodies: a sync URL that stops working while the body arrives writes nothing', () => {
  for (const [routeId, w] of Object.entries(KOBO_WRITES)) {
    for (const change of KOBO_CHANGES) {
      const id = `${routeId} through a Kobo sync URL, held while ${change.name}`;
      it(`${id}: 401, nothing written`, async () => {
        const s = await scene({});
        const device = await api().post('/api/auth/kobo').set(bearer(s.writer.token)).send({ name: 'Held reader' }).expect(201);
        const secret = String(device.body.url).split('/kobo/')[1]!;
        const letIn = authenticationOf(secret);
        const held = await holdRequest(url, w.method, `/kobo/${secret}${w.path(s)}`, { 'Content-Type': 'application/json' }, Buffer.from(JSON.stringify(w.body(s))));
        await letIn;
        await change.apply(s, device.body.id);
        const before = await snapshot();
        const answer = await held.finish();
        const committed = (await snapshot()) !== before;
        tried.push({ id, committed });
        expect({ status: answer.status, committed }, JSON.stringify(answer.body)).toEqual({ status: 401, committed: false });
      }, 30_000);
    }
  }
});
