import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSqliteStore } from '../../src/adapters/sqlite/sqlite-store.js';
import { aBook } from '../support/builders.js';
import { spawnServer, type LogLine, type SpawnedServer } from '../support/cluster-server.js';
import { buildEpub } from '../support/fixtures/epub.js';

// The race-style checks that matter across processes, against the real server run with WORKERS=2 on
// one SQLite file: every limit keeps its meaning, no write is lost, housekeeping runs once, a crashed
// worker comes back, SIGTERM drains. No check bounds a time; the test timeouts only stop a hang.

const ADMIN = { ADMIN_USERNAME: 'root', ADMIN_EMAIL: 'root@example.test', ADMIN_PASSWORD: 'the bootstrap admin password' };
const REGISTRATIONS_PER_HOUR = 20;
const BOOKS = 120;
const PASSWORD = 'a long enough password';

let dataDir: string;
let server: SpawnedServer;
let bookIds: string[] = [];
/** Two accounts the registration burst created (which 20 of the 60 won is up to the race). */
let readers: string[] = [];

async function send(method: string, path: string, options: { token?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = { connection: 'close' }; // a new connection each: the primary spreads them over the workers
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${server.url}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await res.text();
  return { status: res.status, body: text.startsWith('{') ? JSON.parse(text) : text };
}

const burst = <T>(n: number, one: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => one(i)));
const count = (statuses: readonly number[], status: number) => statuses.filter((s) => s === status).length;

async function login(username: string, password: string): Promise<string> {
  const res = await send('POST', '/api/auth/login', { body: { username, password } });
  expect(res.status).toBe(200);
  return res.body.access_token as string;
}

/** Waits until the hourly window is not about to turn (a burst across two windows would get two budgets). */
async function awayFromTheHourTurn(): Promise<void> {
  const msLeft = 3_600_000 - (Date.now() % 3_600_000);
  if (msLeft < 30_000) await new Promise((r) => setTimeout(r, msLeft + 1_000));
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'stacks-workers-'));
  const store = createSqliteStore(dataDir); // books seeded straight into the file, far faster than 120 uploads
  const books = Array.from({ length: BOOKS }, () => aBook());
  for (const book of books) await store.books.create(book);
  await store.close();
  bookIds = books.map((b) => b.id);
  server = await spawnServer({ WORKERS: '2', DATA_DIR: dataDir, REGISTER_LIMIT_PER_HOUR: String(REGISTRATIONS_PER_HOUR), ...ADMIN });
}, 120_000);

afterAll(() => {
  if (server?.child.exitCode === null) server.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

const listening = (l: LogLine) => l.msg === 'worker listening';

describe('WORKERS=2 on one SQLite store', () => {
  it('runs two worker processes that both answer on the one port', async () => {
    const workers = await server.waitFor(listening, 2);
    expect(new Set(workers.map((w) => w.pid)).size).toBe(2);
    const answers = await burst(20, () => send('GET', '/readyz'));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    const served = server.lines().filter((l) => l.path === '/readyz').map((l) => l.worker);
    expect(new Set(served)).toEqual(new Set([0, 1]));
  });

  it('runs housekeeping once, on the first worker only', async () => {
    const done = await server.waitFor((l) => l.msg === 'housekeeping step done' && l.step === 'expired records purged');
    expect(done.map((l) => l.worker)).toEqual([0]);
  });

  it('keeps the registration budget per address across both workers: 60 at once, exactly the budget admitted', async () => {
    await awayFromTheHourTurn();
    const answers = await burst(60, (i) => send('POST', '/api/auth/register', { body: { username: `reader${i}`, email: `reader${i}@example.test`, password: PASSWORD } }));
    const statuses = answers.map((a) => a.status);
    expect(count(statuses, 201)).toBe(REGISTRATIONS_PER_HOUR);
    expect(count(statuses, 429)).toBe(60 - REGISTRATIONS_PER_HOUR);
    readers = answers.flatMap((a, i) => (a.status === 201 ? [`reader${i}`] : []));
  });

  it('keeps the login throttle across both workers: 60 wrong passwords at once, 10 checked, the rest refused', async () => {
    const answers = await burst(60, () => send('POST', '/api/auth/login', { body: { username: readers[1], password: 'not the password' } }));
    const statuses = answers.map((a) => a.status);
    expect(count(statuses, 401)).toBe(10);
    expect(count(statuses, 429)).toBe(50);
  });

  it('loses no write: 120 books added to one shelf at once through both workers, all 120 kept in distinct places', async () => {
    const token = await login(readers[0]!, PASSWORD);
    const shelf = await send('POST', '/api/shelves', { token, body: { name: 'Everything' } });
    expect(shelf.status).toBe(201);
    const answers = await burst(BOOKS, (i) => send('PUT', `/api/shelves/${shelf.body.id}/books/${bookIds[i]}`, { token }));
    expect(answers.filter((a) => a.status >= 300)).toEqual([]);
    const read = await send('GET', `/api/shelves/${shelf.body.id}`, { token });
    expect(read.body.book_count).toBe(BOOKS);
    const listed = new Set<string>();
    for (const page of [1, 2]) {
      const answer = await send('GET', `/api/shelves/${shelf.body.id}/books?page=${page}&page_size=100`, { token });
      for (const book of answer.body.items) listed.add(book.id);
    }
    expect([...listed].sort()).toEqual([...bookIds].sort());
  });

  it('serves the whole flow across workers: upload, read back, search, sign out; the signed-out token is refused by every worker at once', async () => {
    const token = await login(readers[0]!, PASSWORD);
    const form = new FormData();
    form.append('file', new Blob([await buildEpub({ title: 'Harbour Lights' })]), 'harbour.epub');
    const uploaded = await fetch(`${server.url}/api/books`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
    expect(uploaded.status).toBe(201);
    const book = (await uploaded.json()) as { id: string };
    const reads = await burst(10, () => send('GET', `/api/books/${book.id}`, { token }));
    expect(reads.map((r) => r.body.title)).toEqual(Array(10).fill('Harbour Lights'));
    const found = await send('GET', '/api/books?q=harbour', { token });
    expect(found.body.items.map((b: { id: string }) => b.id)).toEqual([book.id]);
    expect((await send('POST', '/api/auth/logout', { token })).status).toBe(204);
    const after = await burst(20, () => send('GET', '/api/books', { token }));
    expect(after.map((a) => a.status)).toEqual(Array(20).fill(401));
  });

  it('restarts a worker that dies, and keeps answering', async () => {
    const before = server.lines().filter(listening);
    const victim = before.find((l) => l.worker === 1)!;
    process.kill(victim.pid!, 'SIGKILL');
    await server.waitFor((l) => l.msg === 'worker died' && l.pid === victim.pid);
    const [back] = await server.waitFor((l) => listening(l) && l.worker === 1 && l.pid !== victim.pid);
    expect(back!.pid).not.toBe(victim.pid);
    const answers = await burst(20, () => send('GET', '/readyz'));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
  });

  it('drains on SIGTERM to the primary: a request in flight is answered in full, then every process exits 0', async () => {
    const pids = server.lines().filter(listening).map((l) => l.pid!);
    const body = JSON.stringify({ username: ADMIN.ADMIN_USERNAME, password: ADMIN.ADMIN_PASSWORD });
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(`${server.url}/api/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' },
      });
      // 100 Continue: a worker has read the headers, so the request is in flight; only then the signal, then the body.
      req.on('continue', () => {
        server.child.kill('SIGTERM');
        void server.waitFor((l) => l.msg === 'shutting down' && l.worker !== undefined, 2).then(() => req.end(body), reject);
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.on('error', reject);
    });
    const answer = await answered;
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text).access_token).toEqual(expect.any(String));
    expect(await server.exited).toBe(0);
    for (const pid of pids) expect(alive(pid)).toBe(false);
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
