import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import request from 'supertest';
import type { BlobStore, BookDigestRepository, BookRepository } from '../../src/application/ports.js';
import { bookFileKey } from '../../src/domain/book.js';
import { STORE_RETRY_AFTER_SECONDS } from '../../src/domain/error-catalogue.js';
import { PORTS } from '../../src/bootstrap/tokens.js';
import { DEFAULT_LOGIN_POLICIES } from '../../src/domain/login-throttle.js';
import { aBook } from '../support/builders.js';
import { addKobo, koboCall, type KoboDeviceUrl } from '../support/kobo.js';
import { koreaderHeaders } from '../support/koreader.js';
import { FAILOVER_ERRORS, injectFaults, type Fault, type FaultInjector } from '../support/mongo-faults.js';
import { MONGO_SERVER_NAMES, mongoServerKind, mongoTestServer } from '../support/mongo-server.js';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../support/test-app.js';

const PASSWORD = 'correct horse battery';
const BOOK = 'failover-book';
const DOCUMENT = 'f'.repeat(32);

let t: TestApp;
let faults: FaultInjector;
let admin: Session;
let apiKey: string;
const logLines: string[] = [];
let shelfId: string;
let kobo: KoboDeviceUrl;

/** One request of a route family, and the collections whose commands fail for it (beyond what authentication reads). */
interface Probe {
  readonly family: string;
  readonly collections: readonly string[];
  send(): request.Test;
}

const PROBES: readonly Probe[] = [
  { family: 'books: list', collections: ['books'], send: () => request(t.app).get('/api/books?q=dune&sort=title').set(bearer(admin.token)) },
  { family: 'books: read', collections: ['books'], send: () => request(t.app).get(`/api/books/${BOOK}`).set(bearer(admin.token)) },
  { family: 'books: edit', collections: ['books'], send: () => request(t.app).patch(`/api/books/${BOOK}`).set(bearer(admin.token)).send({ title: 'Dune Messiah' }) },
  { family: 'books: delete (its progress and digests after it)', collections: ['progress', 'book_digests'],
    send: () => request(t.app).delete(`/api/books/${BOOK}`).set(bearer(admin.token)) },
  { family: 'books: file', collections: ['fs.files'], send: () => request(t.app).get(`/api/books/${BOOK}/file`).set(bearer(admin.token)) },
  { family: 'shelves: list', collections: ['shelves', 'shelf_books'], send: () => request(t.app).get('/api/shelves').set(bearer(admin.token)) },
  { family: 'shelves: create (a transaction)', collections: ['shelves', 'shelf_books', 'books'],
    send: () => request(t.app).post('/api/shelves').set(bearer(admin.token)).send({ name: `Failover ${Math.random()}`, book_ids: [BOOK] }) },
  { family: 'shelves: add a book (a transaction)', collections: ['shelf_books'],
    send: () => request(t.app).put(`/api/shelves/${shelfId}/books/${BOOK}`).set(bearer(admin.token)) },
  { family: 'progress: record', collections: ['progress'],
    send: () => request(t.app).put(`/api/books/${BOOK}/progress`).set(bearer(admin.token)).send({ percentage: 0.5 }) },
  { family: 'progress: read', collections: ['progress'], send: () => request(t.app).get(`/api/books/${BOOK}/progress`).set(bearer(admin.token)) },
  { family: 'identity: login', collections: ['users', 'throttles'],
    send: () => request(t.app).post('/api/auth/login').send({ username: admin.user.username, password: PASSWORD }) },
  { family: 'identity: register', collections: ['users'],
    send: () => request(t.app).post('/api/auth/register').send({ username: `late${Date.now()}`, email: `late${Date.now()}@example.test`, password: PASSWORD }) },
  { family: 'identity: me (token checks)', collections: ['revocations', 'users'], send: () => request(t.app).get('/api/auth/me').set(bearer(admin.token)) },
  { family: 'keys: create', collections: ['api_keys'], send: () => request(t.app).post('/api/auth/keys').set(bearer(admin.token)).send({ name: 'later' }) },
  { family: 'keys: list', collections: ['api_keys'], send: () => request(t.app).get('/api/auth/keys').set(bearer(admin.token)) },
  { family: 'users: list', collections: ['users'], send: () => request(t.app).get('/api/users').set(bearer(admin.token)) },
  { family: 'kosync: pull', collections: ['book_digests', 'sync_documents', 'progress'],
    send: () => request(t.app).get(`/kosync/syncs/progress/${DOCUMENT}`).set(koreaderHeaders(admin.user.username, apiKey)) },
  { family: 'kosync: push', collections: ['book_digests', 'sync_documents', 'progress'],
    send: () => request(t.app).put('/kosync/syncs/progress').set(koreaderHeaders(admin.user.username, apiKey))
      .send({ document: DOCUMENT, progress: '/body/p[3]', percentage: 0.4, device: 'Kobo', device_id: 'k1' }) },
  { family: 'opds: catalog page', collections: ['books'],
    send: () => request(t.app).get('/opds/books').auth(admin.user.username, PASSWORD) },
  { family: 'kobo devices: add', collections: ['kobo_devices'],
    send: () => request(t.app).post('/api/auth/kobo').set(bearer(admin.token)).send({ name: 'Kobo Clara' }) },
  { family: 'kobo devices: list', collections: ['kobo_devices'], send: () => request(t.app).get('/api/auth/kobo').set(bearer(admin.token)) },
  { family: 'kobo: device sign-in (sync URL)', collections: ['kobo_devices'], send: () => koboCall(t.app, kobo, 'get', '/v1/initialization') },
  { family: 'kobo: library sync (change feed)', collections: ['change_feed'], send: () => koboCall(t.app, kobo, 'get', '/v1/library/sync') },
  { family: 'kobo: reading state (progress and its change-feed entry)', collections: ['progress', 'change_feed', 'change_feed_counter'],
    send: () => koboCall(t.app, kobo, 'put', `/v1/library/${BOOK}/state`).send({ ReadingStates: [{
      EntitlementId: BOOK, LastModified: '2026-11-22T10:05:00Z',
      StatusInfo: { LastModified: '2026-11-22T10:05:00Z', Status: 'Reading' },
      CurrentBookmark: { LastModified: '2026-11-22T10:05:00Z', ProgressPercent: 37 },
    }] }) },
  { family: 'kobo: archive a book', collections: ['kobo_archived'], send: () => koboCall(t.app, kobo, 'delete', `/v1/library/${BOOK}`) },
];

beforeAll(async () => {
  const url = (await mongoTestServer()).database(`stacks_failover_${process.pid}`);
  t = await startTestApp({ DATABASE_URL: url, RATE_LIMIT_PER_MINUTE: '0', REGISTER_LIMIT_PER_HOUR: '0' }, {}, logLines);
  admin = await registerUser(t.app, 'failoveradmin', PASSWORD);
  await restoreTheBook();
  apiKey = (await request(t.app).post('/api/auth/keys').set(bearer(admin.token)).send({ name: 'kobo' })).body.key as string;
  shelfId = (await request(t.app).post('/api/shelves').set(bearer(admin.token)).send({ name: 'Failover shelf' })).body.id as string;
  kobo = await addKobo(t.app, admin);
  faults = injectFaults();
}, 60_000);
afterEach(() => restoreTheBook());
afterAll(async () => {
  faults?.restore();
  await t?.close();
});

/** The book, its file and its digests, as before a probe that deleted them (a deletion whose later steps failed stays partly done). */
async function restoreTheBook(): Promise<void> {
  const books = t.container.di.resolve<BookRepository>(PORTS.BookRepository);
  if (!(await books.findById(BOOK))) await books.create(aBook({ id: BOOK, title: 'Dune', owner: { id: admin.user.id, username: admin.user.username } }));
  const blobs = t.container.di.resolve<BlobStore>(PORTS.BlobStore);
  if ((await blobs.size(bookFileKey(BOOK))) === null) await blobs.putBytes(bookFileKey(BOOK), Buffer.from('the whole book'));
  await t.container.di.resolve<BookDigestRepository>(PORTS.BookDigestRepository).put(BOOK, { partialMd5: DOCUMENT, fileNameMd5: 'e'.repeat(32) });
}

/** The request under the fault: its status, code and Retry-After, then the same request again once healed. */
async function underFault(probe: Probe, fault: Fault) {
  faults.fail(fault);
  let answer: request.Response;
  try {
    answer = await probe.send();
  } finally {
    faults.heal();
  }
  const code = (answer.body as { code?: string }).code ?? (answer.text.includes('store_unavailable') ? 'store_unavailable' : answer.text.slice(0, 200));
  return { status: answer.status, code, retryAfter: answer.headers['retry-after'] };
}

const UNAVAILABLE = { status: 503, code: 'store_unavailable', retryAfter: String(STORE_RETRY_AFTER_SECONDS) };

describe(`a failover answers 503 store_unavailable with Retry-After on every route family (synthesised driver errors, ${MONGO_SERVER_NAMES[mongoServerKind()]})`, () => {
  describe.each(Object.entries(FAILOVER_ERRORS))('%s', (_, error) => {
    it.each(PROBES.map((p) => [p.family, p] as const))('%s', async (_family, probe) => {
      expect(await underFault(probe, { error, collections: probe.collections })).toEqual(UNAVAILABLE);
    });
  });

  it.each(PROBES.map((p) => [p.family, p] as const))('no server selectable at all (every operation): %s', async (_family, probe) => {
    expect(await underFault(probe, { error: FAILOVER_ERRORS['server selection timed out (no primary)']!, at: 'selection' })).toEqual(UNAVAILABLE);
  });

  it('gives a Kobo sign-in the store failed its attempt back: more failed lookups than the device may fail are all 503, and it signs in once healed', async () => {
    const signIn = PROBES.find((p) => p.family === 'kobo: device sign-in (sync URL)')!;
    for (let i = 0; i < DEFAULT_LOGIN_POLICIES.account.maxFailures + 2; i++) {
      expect(await underFault(signIn, { error: FAILOVER_ERRORS['NotWritablePrimary (10107)']!, collections: ['kobo_devices'] })).toEqual(UNAVAILABLE);
    }
    expect((await signIn.send()).status).toBe(200);
  });

  it('gives an API key sign-in the store failed its attempt back: more failed lookups than an address may fail are all 503, and the key works once healed', async () => {
    const pull = PROBES.find((p) => p.family === 'kosync: pull')!;
    for (let i = 0; i < DEFAULT_LOGIN_POLICIES.address.maxFailures + 2; i++) {
      expect(await underFault(pull, { error: FAILOVER_ERRORS['NotWritablePrimary (10107)']!, collections: ['api_keys'] })).toEqual(UNAVAILABLE);
    }
    expect((await pull.send()).status).not.toBe(429);
  });

  it('answers /readyz 503 while no server is selectable, and 200 again once one is', async () => {
    faults.fail({ error: FAILOVER_ERRORS['server selection timed out (no primary)']!, at: 'selection' });
    try {
      expect((await request(t.app).get('/readyz')).status).toBe(503);
    } finally {
      faults.heal();
    }
    await expect.poll(async () => (await request(t.app).get('/readyz')).status, { timeout: 10_000 }).toBe(200);
  });

  it('logs each 503 with the driver error\'s class and code, never its message', async () => {
    logLines.length = 0;
    const steppedDown = () => Object.assign(FAILOVER_ERRORS['NotWritablePrimary (10107)']!(), { message: 'not primary: do not log me' });
    expect(await underFault(PROBES[1]!, { error: steppedDown, collections: ['books'] })).toEqual(UNAVAILABLE);
    const logged = logLines.map((line) => JSON.parse(line) as { msg: string; code?: string; cause?: unknown }).filter((l) => l.msg === 'dependency error');
    expect(logged).toEqual([expect.objectContaining({ code: 'store_unavailable', cause: { name: 'MongoServerError', code: 10107 } })]);
    expect(logLines.join('')).not.toContain('do not log me');
  });

  it('answers a driver error that is not a failover (a bad value, code 2) with 500, not 503', async () => {
    const badValue = () => Object.assign(new Error('not a failover'), { name: 'TypeError' });
    faults.fail({ error: badValue, collections: ['books'] });
    try {
      expect((await request(t.app).get(`/api/books/${BOOK}`).set(bearer(admin.token))).status).toBe(500);
    } finally {
      faults.heal();
    }
  });
});
