import type { Server } from 'node:http';
import { createHttpServer } from '../../../src/adapters/http/http-server.js';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import type { ContainerOverrides } from '../../../src/bootstrap/container.js';
import { upload } from '../../support/books.js';
import { buildEpub, buildPdf } from '../../support/fixtures/index.js';
import { bearer, registerUser, startTestApp, type Session, type TestApp } from '../../support/test-app.js';
import { FakeClock } from '../../support/clock.js';

/** The catalogue's shared service: the embedded (SQLite) store in a temp DATA_DIR, on a real socket. */
export interface World {
  readonly t: TestApp;
  readonly server: Server;
  readonly url: string;
  readonly clock: FakeClock;
  readonly logLines: string[];
  readonly dataDir: string;
  readonly admin: Session;
  readonly alice: Session;
  readonly bob: Session;
  readonly reader: Session;
  readonly ids: { aliceBook: string; alicePrivateShelf: string; alicePublicShelf: string; bobBook: string; bobShelf: string; aliceKey: string };
  /** A supertest client bound to the listening server. */
  api(): ReturnType<typeof request>;
  /** A new ordinary account. */
  fresh(prefix?: string): Promise<Session>;
  /** Admin's view of the objects an attack may try to change. */
  snapshot(): Promise<string>;
  close(): Promise<void>;
}

/** Roomy per-address limits so that one test client does not lock itself out; per-account stays at 10. */
export const WORLD_LOGIN_POLICIES: NonNullable<ContainerOverrides['loginPolicies']> = {
  account: { maxFailures: 10, windowMs: 15 * 60_000, blockMs: 5 * 60_000, maxBlockMs: 60 * 60_000 },
  address: { maxFailures: 1_000_000, windowMs: 24 * 3_600_000, blockMs: 15 * 60_000, maxBlockMs: 24 * 3_600_000 },
};

/** Every client of these suites is on loopback: the per-address connection cap (tested on its own) is lifted. */
export const LOOPBACK_LIMITS = { maxConnectionsPerAddress: 100_000 };

export async function listen(t: TestApp): Promise<{ server: Server; url: string }> {
  const server = createHttpServer(t.app, LOOPBACK_LIMITS);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

let counter = 0;

export async function createWorld(env: Record<string, string> = {}): Promise<World> {
  const dataDir = await mkdtemp(join(tmpdir(), 'stacks-sec-'));
  const clock = new FakeClock();
  const logLines: string[] = [];
  const t = await startTestApp({ DATABASE_URL: '', DATA_DIR: dataDir, LOG_LEVEL: 'info', RATE_LIMIT_PER_MINUTE: '0', REGISTER_LIMIT_PER_HOUR: '0', ...env }, { clock, loginPolicies: WORLD_LOGIN_POLICIES }, logLines);
  const { server, url } = await listen(t);
  const api = () => request(server);
  const admin = await registerUser(t.app, 'secadmin');
  const alice = await registerUser(t.app, 'alice');
  const bob = await registerUser(t.app, 'bob');
  const reader = await registerUser(t.app, 'reader');
  await api().patch(`/api/users/${reader.user.id}`).set(bearer(admin.token)).send({ roles: ['reader'] }).expect(200);

  const bookOf = async (s: Session, text: string) => {
    const res = await upload(t.app, s, Buffer.from(`${text}\n`), `${s.user.username} - ${text}.txt`);
    if (res.status !== 201) throw new Error(`upload: ${res.status} ${res.text}`);
    return res.body.id as string;
  };
  const shelfOf = async (s: Session, name: string, isPublic: boolean, bookIds: string[]) => {
    const res = await api().post('/api/shelves').set(bearer(s.token)).send({ name, is_public: isPublic, book_ids: bookIds });
    if (res.status !== 201) throw new Error(`shelf: ${res.status} ${res.text}`);
    return res.body.id as string;
  };
  // Start the metadata workers (pdf.js and the ZIP readers) first, so the RSS bounds measure requests, not thread start-up.
  for (const [bytes, name] of [[buildPdf({ info: { Title: 'Warm-up' } }), 'warm.pdf'], [await buildEpub({ title: 'Warm-up' }), 'warm.epub']] as const) {
    const res = await upload(t.app, admin, bytes, name);
    await api().delete(`/api/books/${res.body.id}`).set(bearer(admin.token));
  }
  const aliceBook = await bookOf(alice, 'Alice private notes');
  const bobBook = await bookOf(bob, 'Bob book');
  const ids = {
    aliceBook,
    bobBook,
    alicePrivateShelf: await shelfOf(alice, 'Alice secret shelf', false, [aliceBook]),
    alicePublicShelf: await shelfOf(alice, 'Alice public shelf', true, [aliceBook]),
    bobShelf: await shelfOf(bob, 'Bob shelf', false, [bobBook]),
    aliceKey: (await api().post('/api/auth/keys').set(bearer(alice.token)).send({ name: 'Alice key' }).expect(201)).body.id as string,
  };

  const asAdmin = (path: string) => api().get(path).set(bearer(admin.token));
  return {
    t, server, url, clock, logLines, dataDir, admin, alice, bob, reader, ids, api,
    async fresh(prefix = 'fresh') {
      counter += 1;
      return registerUser(t.app, `${prefix}${counter}`);
    },
    async snapshot() {
      const parts = await Promise.all([
        asAdmin(`/api/books/${ids.aliceBook}`), asAdmin(`/api/shelves/${ids.alicePrivateShelf}`),
        asAdmin(`/api/shelves/${ids.alicePublicShelf}`), asAdmin(`/api/users/${alice.user.id}`),
        asAdmin(`/api/users/${bob.user.id}`), asAdmin(`/api/users/${alice.user.id}/keys`), asAdmin('/api/books?page_size=1'), asAdmin('/api/shelves?page_size=1'),
      ]);
      return parts.map((r) => `${r.status}:${JSON.stringify({ ...r.body, items: undefined })}`).join('\n');
    },
    async close() {
      await closeServer(server);
      await t.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A second service with its own configuration, for attacks that need one (CORS, throttling, NODE_ENV). */
export async function otherApp(env: Record<string, string> = {}, overrides: ContainerOverrides = {}): Promise<TestApp & { dataDir: string }> {
  const dataDir = await mkdtemp(join(tmpdir(), 'stacks-sec-other-'));
  const t = await startTestApp({ DATA_DIR: dataDir, ...env }, overrides);
  return {
    ...t,
    dataDir,
    close: async () => {
      await t.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
