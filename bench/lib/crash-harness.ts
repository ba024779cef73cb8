import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { STORAGE_SWEEP_GRACE_MS } from '../../src/application/use-cases/reconcile-book-storage.js';
import { ageStorage, checkAccountsAndShelves, checkBooks, checkStorage, noViolations, type Violations } from './crash-checks.js';
import { api, makeUploads, ok, recordUpload, sendUpload, type Ledger } from './crash-workload.js';
import { seededRandom, type SeededRandom } from './seeded-random.js';
import { startStacksOn, type StacksProcess, type StacksSource } from './source-stacks.js';

export interface CrashOptions {
  readonly cycles: number;
  readonly seed: number;
  readonly source: StacksSource;
  readonly uploadsPerCycle?: number;
  readonly registrationsPerCycle?: number;
  /** The kill comes at a seeded moment in [0, maxKillDelayMs] after the load starts. */
  readonly maxKillDelayMs?: number;
  readonly log?: (msg: string) => void;
}

export interface CrashReport {
  readonly cycles: number;
  readonly acknowledged: number;
  /** Requests that were in flight at a kill (and, for uploads, retried after the restart). */
  readonly unacknowledged: number;
  readonly records: number;
  readonly violations: Violations;
  readonly summary: string;
}

const PASSWORD = 'crash password 0123';

/** Starts Stacks on a temp DATA_DIR, then per cycle: load, SIGKILL at a seeded moment, restart, verify. */
export async function runCrashCycles(options: CrashOptions): Promise<CrashReport> {
  const rnd = seededRandom(options.seed);
  const log = options.log ?? (() => undefined);
  const dataDir = await mkdtemp(join(tmpdir(), 'stacks-crash-'));
  const jwtSecret = randomBytes(48).toString('base64url');
  const start = () => startStacksOn({ dataDir, jwtSecret, source: options.source });
  const v = noViolations();
  let server: StacksProcess | null = await start();
  let unacknowledged = 0;
  let records = 0;
  try {
    const owner = await api(server.url, '/api/auth/register', { method: 'POST', json: { username: 'owner', email: 'owner@crash.example', password: PASSWORD } });
    if (owner.status !== 201) throw new Error(`owner registration: ${owner.status}`);
    const inbox = await api(server.url, '/api/shelves', { method: 'POST', token: owner.body.access_token, json: { name: 'inbox' } });
    const ledger: Ledger = { books: new Map(), users: [], shelves: new Map(), inbox: { id: inbox.body.id, mustContain: new Set() }, pendingUploads: [], acknowledged: 0 };
    for (let cycle = 1; cycle <= options.cycles; cycle++) {
      const token = (await api(server.url, '/api/auth/login', { method: 'POST', json: { username: 'owner', password: PASSWORD } })).body.access_token as string;
      const before = ledger.acknowledged;
      const inFlight = await loadAndKill(server, token, ledger, cycle, rnd, options);
      unacknowledged += inFlight;
      server = null;
      await ageStorage(dataDir, 2 * STORAGE_SWEEP_GRACE_MS);
      server = await start();
      const fresh = (await api(server.url, '/api/auth/login', { method: 'POST', json: { username: 'owner', password: PASSWORD } })).body.access_token as string;
      records = await checkStorage(dataDir, v);
      await checkBooks(server.url, fresh, ledger, (c) => c === cycle || cycle === options.cycles, v);
      await checkAccountsAndShelves(server.url, fresh, ledger, v);
      await retryPending(server.url, fresh, ledger, cycle);
      records = await checkStorage(dataDir, v);
      log(`cycle ${cycle}: +${ledger.acknowledged - before} acknowledged, ${inFlight} in flight at the kill, ${records} books, violations ${v.lost}/${v.dangling}/${v.orphans}/${v.duplicates}`);
    }
    const summary = `CRASH: ${options.cycles} cycles, ${ledger.acknowledged} acknowledged writes, ${v.lost} lost, ${v.dangling} dangling records, ${v.orphans} orphan files, ${v.duplicates} duplicates`;
    return { cycles: options.cycles, acknowledged: ledger.acknowledged, unacknowledged, records, violations: v, summary };
  } finally {
    await server?.stop(5_000);
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Fires the cycle's uploads, registrations and shelf edits at once, kills the server at a seeded moment. */
async function loadAndKill(server: StacksProcess, token: string, ledger: Ledger, cycle: number, rnd: SeededRandom, options: CrashOptions): Promise<number> {
  const uploads = await makeUploads(cycle, options.uploadsPerCycle ?? 50, rnd);
  const killAfter = rnd.int(0, options.maxKillDelayMs ?? 3_000);
  const ackedBooks = [...ledger.books.values()].map((b) => b.id);
  const someBooks = () => Array.from(new Set(Array.from({ length: Math.min(3, ackedBooks.length) }, () => rnd.pick(ackedBooks))));
  const base = server.url;
  const work: Promise<boolean>[] = [];
  for (const upload of uploads) work.push(sendUpload(base, token, upload).then((a) => (recordUpload(ledger, upload, a, cycle), a.status !== 0)));
  for (let i = 0; i < (options.registrationsPerCycle ?? 5); i++) {
    const user = { username: `c${cycle}r${i}`, password: PASSWORD };
    work.push(api(base, '/api/auth/register', { method: 'POST', json: { ...user, email: `${user.username}@crash.example` } }).then((a) => acked(ledger, a, () => ledger.users.push(user))));
  }
  for (let i = 0; i < 3; i++) {
    const bookIds = someBooks();
    work.push(api(base, '/api/shelves', { method: 'POST', token, json: { name: `c${cycle}s${i}`, book_ids: bookIds } })
      .then((a) => acked(ledger, a, () => ledger.shelves.set(a.body.id, { expected: [bookIds], patched: false }))));
  }
  const patchable = [...ledger.shelves].filter(([, s]) => !s.patched).slice(0, 2);
  for (const [id, shelf] of patchable) {
    const bookIds = someBooks();
    shelf.patched = true;
    shelf.expected = [...shelf.expected, bookIds];
    work.push(api(base, `/api/shelves/${id}`, { method: 'PATCH', token, json: { description: `patched in ${cycle}`, book_ids: bookIds } })
      .then((a) => acked(ledger, a, () => (shelf.expected = [bookIds]))));
  }
  for (let i = 0; i < Math.min(5, ackedBooks.length); i++) {
    const bookId = rnd.pick(ackedBooks);
    work.push(api(base, `/api/shelves/${ledger.inbox.id}/books/${bookId}`, { method: 'PUT', token }).then((a) => acked(ledger, a, () => ledger.inbox.mustContain.add(bookId))));
  }
  const settled = Promise.allSettled(work);
  await new Promise((r) => setTimeout(r, killAfter));
  await server.kill();
  const results = await settled;
  const failure = results.find((r) => r.status === 'rejected');
  if (failure) throw (failure as PromiseRejectedResult).reason;
  const inFlight = results.filter((r) => r.status === 'fulfilled' && !r.value).length;
  options.log?.(`cycle ${cycle}: killed at ${killAfter} ms; ${results.length - inFlight} of ${results.length} requests answered before the kill`);
  return inFlight;
}

/** Counts a 2xx as acknowledged and applies it to the ledger; a refusal other than a lost connection is a bug. */
function acked(ledger: Ledger, answer: { status: number; body: any }, apply: () => void): boolean {
  if (ok(answer)) {
    apply();
    ledger.acknowledged += 1;
  } else if (answer.status !== 0) {
    throw new Error(`unexpected ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
  }
  return answer.status !== 0;
}

/** Uploads that got no answer are sent again: each must now be 201 or 409 (stored once). */
async function retryPending(base: string, token: string, ledger: Ledger, cycle: number): Promise<void> {
  const pending = ledger.pendingUploads.splice(0);
  for (const upload of pending) {
    const answer = await sendUpload(base, token, upload);
    if (answer.status !== 201 && answer.status !== 409) throw new Error(`retry of ${upload.fileName}: ${answer.status}`);
    recordUpload(ledger, upload, answer, cycle);
  }
}
