import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import request from 'supertest';
import { buildPdf } from '../support/fixtures/index.js';
import type { MongoTestServer } from '../support/mongo-server.js';
import { MONGO_SERVER_NAMES, mongoLimits, mongoServerKind, mongoTestServer, stopMongoTestServer } from '../support/mongo-server.js';

const JWT_SECRET = 'two-instances-share-this-secret-of-48-bytes-long!';
const PASSWORD = 'correct horse battery';
const ADMIN = { ADMIN_USERNAME: 'root', ADMIN_EMAIL: 'root@example.test', ADMIN_PASSWORD: 'the bootstrap admin password' };

interface Instance {
  readonly url: string;
  readonly process: ChildProcess;
  readonly dataDir: string;
  /** Milliseconds from spawning the process to its first 200 on /readyz. */
  readonly readyAfterMs: number;
  /** Everything the process logged. */
  log(): string;
}

/** Starts `src/bootstrap/main.ts` as its own process on a free port and waits until /readyz answers. */
async function startInstance(databaseUrl: string, name: string): Promise<Instance> {
  const dataDir = mkdtempSync(join(tmpdir(), `stacks-${name}-`));
  const spawnedAt = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/bootstrap/main.ts'], {
    env: { ...process.env, DATABASE_URL: databaseUrl, JWT_SECRET, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir,
      BCRYPT_COST: '4', LOG_LEVEL: 'info', NODE_ENV: 'test', ...ADMIN },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${log}`)), 60_000);
    child.stderr?.on('data', (d: Buffer) => (log += d.toString()));
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}:\n${log}`)));
    child.stdout?.on('data', (d: Buffer) => {
      log += d.toString();
      const match = /"port":(\d+)[^\n]*Stacks is listening/.exec(log) ?? /Stacks is listening[^\n]*"port":(\d+)/.exec(log);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    });
  });
  const url = `http://127.0.0.1:${port}`;
  await request(url).get('/readyz').expect(200);
  return { url, process: child, dataDir, readyAfterMs: Date.now() - spawnedAt, log: () => log };
}

async function stopInstance(instance: Instance | undefined): Promise<void> {
  if (!instance) return;
  if (instance.process.exitCode === null) {
    const exited = new Promise((resolve) => instance.process.once('exit', resolve));
    instance.process.kill('SIGTERM');
    await exited;
  }
  rmSync(instance.dataDir, { recursive: true, force: true });
}

describe(`two Stacks instances on one MongoDB store (${MONGO_SERVER_NAMES[mongoServerKind()]})`, () => {
  let server: MongoTestServer;
  let a: Instance | undefined;
  let b: Instance | undefined;
  let databaseUrl: string;

  beforeAll(async () => {
    server = await mongoTestServer();
    databaseUrl = server.database(`stacks_two_instances_${process.pid}`);
    [a, b] = await Promise.all([startInstance(databaseUrl, 'a'), startInstance(databaseUrl, 'b')]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([stopInstance(a), stopInstance(b)]);
    await stopMongoTestServer();
  });

  const A = () => (a as Instance).url;
  const B = () => (b as Instance).url;

  async function register(url: string, username: string): Promise<string> {
    const res = await request(url).post('/api/auth/register')
      .send({ username, email: `${username}@example.test`, password: PASSWORD }).expect(201);
    return res.body.access_token as string;
  }

  it('starts both at once on an empty database with ADMIN_*: neither exits, the admin signs in on both', async () => {
    for (const instance of [a, b] as Instance[]) {
      expect(instance.process.exitCode).toBeNull();
      const login = await request(instance.url).post('/api/auth/login').send({ username: 'root', password: ADMIN.ADMIN_PASSWORD }).expect(200);
      expect(login.body.user.roles).toEqual(['admin']);
    }
    const logs = `${(a as Instance).log()}\n${(b as Instance).log()}`;
    expect(logs).toMatch(/bootstrap admin created"/);
    expect(logs).not.toMatch(/start-up failed/);
  });

  it.skipIf(mongoLimits().uniqueIndexes !== undefined)(
    `keeps one bootstrap admin account after both started together${mongoLimits().uniqueIndexes ? ` (skipped: the stand-in ${mongoLimits().uniqueIndexes})` : ''}`,
    async () => {
      const login = await request(A()).post('/api/auth/login').send({ username: 'root', password: ADMIN.ADMIN_PASSWORD }).expect(200);
      const users = await request(B()).get('/api/users').set('Authorization', `Bearer ${login.body.access_token as string}`).expect(200);
      expect(users.body.items.filter((u: { username: string }) => u.username === 'root')).toHaveLength(1);
    },
  );

  it('serves through one instance a book uploaded through the other, same bytes, ranges too', async () => {
    const token = await register(A(), 'uploader');
    const file = buildPdf({ info: { Title: 'Shared Across Instances' } });
    const created = await request(A()).post('/api/books').set('Authorization', `Bearer ${token}`).attach('file', file, 'shared.pdf').expect(201);
    const id = created.body.id as string;
    const listed = await request(B()).get('/api/books').query({ q: 'across instances' }).set('Authorization', `Bearer ${token}`).expect(200);
    expect(listed.body.items.map((book: { id: string }) => book.id)).toEqual([id]);
    const download = await request(B()).get(`/api/books/${id}/file`).set('Authorization', `Bearer ${token}`)
      .buffer(true).parse((res, done) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () => done(null, Buffer.concat(parts)));
      }).expect(200);
    expect(Buffer.compare(download.body as Buffer, file)).toBe(0);
    const range = await request(B()).get(`/api/books/${id}/file`).set('Authorization', `Bearer ${token}`).set('Range', 'bytes=0-7')
      .buffer(true).parse((res, done) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () => done(null, Buffer.concat(parts)));
      }).expect(206);
    expect(Buffer.compare(range.body as Buffer, file.subarray(0, 8))).toBe(0);
  });

  it('refuses on one instance a token logged out on the other', async () => {
    const token = await register(B(), 'leaver');
    await request(A()).get('/api/auth/me').set('Authorization', `Bearer ${token}`).expect(200);
    await request(A()).post('/api/auth/logout').set('Authorization', `Bearer ${token}`).expect(204);
    const refused = await request(B()).get('/api/auth/me').set('Authorization', `Bearer ${token}`).expect(401);
    expect(refused.body.code).toBe('invalid_token');
  });

  it('counts login failures across both instances (10 per account, 5 on each, then blocked on both)', async () => {
    await register(A(), 'target');
    for (let i = 0; i < 10; i++) {
      const url = i % 2 === 0 ? A() : B();
      await request(url).post('/api/auth/login').send({ username: 'target', password: 'wrong password!' }).expect(401);
    }
    const onB = await request(B()).post('/api/auth/login').send({ username: 'target', password: PASSWORD });
    expect(onB.status).toBe(429);
    expect(Number(onB.headers['retry-after'])).toBeGreaterThan(0);
    await request(A()).post('/api/auth/login').send({ username: 'target', password: PASSWORD }).expect(429);
  });
  describe('shelf edits racing book deletes, 120 requests split across both instances', () => {
    const BOOKS = 40;
    const SHELVES = 4;
    let answers: { what: string; status: number }[] = [];
    let token: string;
    let shelfIds: string[] = [];
    let deleted: string[] = [];

    beforeAll(async () => {
      token = await register(A(), 'racer');
      const auth = { Authorization: `Bearer ${token}` };
      const bookIds: string[] = [];
      for (let i = 0; i < BOOKS; i++) {
        const created = await request(i % 2 ? B() : A()).post('/api/books').set(auth)
          .attach('file', Buffer.from(`raced book ${i}\n`), `Racer - Raced Book ${i}.txt`).expect(201);
        bookIds.push(created.body.id as string);
      }
      for (let s = 0; s < SHELVES; s++) {
        const shelf = await request(A()).post('/api/shelves').set(auth)
          .send({ name: `Raced ${s}`, book_ids: bookIds.filter((_, i) => i % SHELVES === s) }).expect(201);
        shelfIds.push(shelf.body.id as string);
      }
      const doomed = bookIds.filter((_, i) => i % 2 === 0);
      const send = (what: string, call: () => request.Test) => call().set(auth).then((res) => ({ what, status: res.status }));
      const at = (n: number) => (n % 2 ? B() : A());
      const requests = [
        ...doomed.map((id, n) => send('delete book', () => request(at(n)).delete(`/api/books/${id}`))),
        ...bookIds.map((id, n) => send('add to shelf', () => request(at(n + 1)).put(`/api/shelves/${shelfIds[n % SHELVES]}/books/${id}`))),
        ...Array.from({ length: 40 }, (_, n) => send('replace shelf books', () => request(at(n)).patch(`/api/shelves/${shelfIds[n % SHELVES]}`)
          .send({ book_ids: bookIds.slice(n % 8, n % 8 + 8).reverse() }))),
        ...bookIds.slice(0, 20).map((id, n) => send('remove from shelf', () => request(at(n + 1)).delete(`/api/shelves/${shelfIds[(n + 1) % SHELVES]}/books/${id}`))),
      ];
      answers = await Promise.all(requests);
      deleted = doomed.filter((_, n) => answers[n]?.status === 204);
    }, 180_000);

    it('answers each of the 120 requests with a success or a 4xx, never a 5xx', () => {
      expect(answers).toHaveLength(120);
      expect(answers.filter((a) => a.status >= 500)).toEqual([]);
      expect(deleted.length).toBeGreaterThan(0);
    });

    it.skipIf(mongoLimits().transactions !== undefined || mongoLimits().uniqueIndexes !== undefined)(
      `ends consistent: no entry for a deleted book, no repeated position, book_count equal to the stored entries${
        mongoLimits().transactions ? ` (skipped: the stand-in ${mongoLimits().transactions} and ${mongoLimits().uniqueIndexes})` : ''}`,
      async () => {
        const client = new MongoClient(databaseUrl);
        try {
          const db = client.db();
          const entries = await db.collection<{ shelfId: string; bookId: string; position: number }>('shelf_books')
            .find({ shelfId: { $in: shelfIds } }).toArray();
          const books = new Set((await db.collection('books').find({}, { projection: { _id: 1 } }).toArray()).map((d) => String(d._id)));
          expect(entries.filter((e) => !books.has(e.bookId))).toEqual([]);
          expect(deleted.filter((id) => books.has(id))).toEqual([]);
          const slots = entries.map((e) => `${e.shelfId}/${e.position}`);
          expect(slots.length - new Set(slots).size).toBe(0);
          for (const shelfId of shelfIds) {
            const stored = entries.filter((e) => e.shelfId === shelfId).length;
            for (const url of [A(), B()]) {
              const shelf = await request(url).get(`/api/shelves/${shelfId}`).set('Authorization', `Bearer ${token}`).expect(200);
              expect(shelf.body.book_count).toBe(stored);
              expect(new Set(shelf.body.book_ids).size).toBe(stored);
              const listed = await request(url).get(`/api/shelves/${shelfId}/books`).query({ page_size: 100 }).set('Authorization', `Bearer ${token}`).expect(200);
              expect(listed.body.total).toBe(stored);
            }
          }
        } finally {
          await client.close();
        }
      },
    );
  });
});
