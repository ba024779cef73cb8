import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { loadSqliteDriver } from '../../src/adapters/sqlite/sqlite-driver.js';
import { api, sha256, type Ledger } from './crash-workload.js';

const BetterSqlite3 = loadSqliteDriver();

/** Counts of what a check found wrong; all zero is a pass. */
export interface Violations {
  lost: number;
  dangling: number;
  orphans: number;
  duplicates: number;
  details: string[];
}

export const noViolations = (): Violations => ({ lost: 0, dangling: 0, orphans: 0, duplicates: 0, details: [] });

function note(v: Violations, kind: 'lost' | 'dangling' | 'orphans' | 'duplicates', detail: string): void {
  v[kind] += 1;
  if (v.details.length < 20) v.details.push(`${kind}: ${detail}`);
}

async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

async function names(dir: string): Promise<string[]> {
  return readdir(dir).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? [] : Promise.reject(e)));
}

/**
 * Reads the SQLite store directly: every book record's file exists with its size and SHA-256, its
 * cover exists when recorded, no shelf entry names a missing book, no SHA-256 twice; then
 * `tmp/` is empty and every file in `books/` belongs to a record.
 */
export async function checkStorage(dataDir: string, v: Violations): Promise<number> {
  const db = new BetterSqlite3(join(dataDir, 'stacks.db'), { readonly: true, fileMustExist: true });
  let rows: { id: string; file_size: number; sha256: string; cover_media_type: string | null }[];
  try {
    rows = db.prepare('SELECT id, file_size, sha256, cover_media_type FROM books').all() as typeof rows;
    const danglingEntries = db.prepare('SELECT count(*) FROM shelf_books WHERE book_id NOT IN (SELECT id FROM books)').pluck().get() as number;
    for (let i = 0; i < danglingEntries; i++) note(v, 'dangling', 'shelf entry without a book');
    const twice = db.prepare('SELECT count(*) FROM (SELECT sha256 FROM books GROUP BY sha256 HAVING count(*) > 1)').pluck().get() as number;
    for (let i = 0; i < twice; i++) note(v, 'duplicates', 'SHA-256 stored twice');
  } finally {
    db.close();
  }
  const booksDir = join(dataDir, 'books');
  const expected = new Set<string>();
  for (const row of rows) {
    const file = join(booksDir, `${row.id}.book`);
    expected.add(`${row.id}.book`);
    const size = await stat(file).then((s) => s.size, () => null);
    if (size === null) note(v, 'dangling', `${row.id}: file missing`);
    else if (size !== row.file_size) note(v, 'dangling', `${row.id}: ${size} bytes, record says ${row.file_size}`);
    else if ((await fileSha256(file)) !== row.sha256) note(v, 'dangling', `${row.id}: SHA-256 differs`);
    if (row.cover_media_type !== null) {
      expected.add(`${row.id}.cover`);
      if ((await stat(join(booksDir, `${row.id}.cover`)).catch(() => null)) === null) note(v, 'dangling', `${row.id}: cover missing`);
    }
  }
  for (const name of await names(booksDir)) if (!expected.has(name)) note(v, 'orphans', `books/${name}`);
  for (const name of await names(join(dataDir, 'tmp'))) note(v, 'orphans', `tmp/${name}`);
  return rows.length;
}

/**
 * Dates every file in `books/` and `tmp/` back by `ms`. The start-up reconciler only sweeps files older
 * than its grace period (a younger one may be an upload another process is about to record), so the
 * harness ages a killed server's files before restarting it, as if the restart came that much later.
 */
export async function ageStorage(dataDir: string, ms: number): Promise<void> {
  for (const dir of [join(dataDir, 'books'), join(dataDir, 'tmp')]) {
    for (const name of await names(dir)) {
      // Back from each file's own time, not this process's clock: the server may run on another one.
      const path = join(dir, name);
      const at = await stat(path).then((s) => new Date(s.mtimeMs - ms), () => null);
      if (at) await utimes(path, at, at).catch(() => undefined);
    }
  }
}

/** Every acknowledged book answers with its SHA-256; those of `downloadCycles` are downloaded and hashed. */
export async function checkBooks(base: string, token: string, ledger: Ledger, downloadCycles: (cycle: number) => boolean, v: Violations): Promise<void> {
  for (const [sha, book] of ledger.books) {
    const meta = await api(base, `/api/books/${book.id}`, { token });
    if (meta.status !== 200 || meta.body.sha256 !== sha || meta.body.file_size !== book.size) {
      note(v, 'lost', `book ${book.id}: ${meta.status}`);
      continue;
    }
    if (!downloadCycles(book.cycle)) continue;
    const res = await fetch(`${base}/api/books/${book.id}/file`, { headers: { authorization: `Bearer ${token}` } });
    const bytes = Buffer.from(await res.arrayBuffer());
    if (res.status !== 200 || bytes.length !== book.size || sha256(bytes) !== sha) note(v, 'lost', `book ${book.id}: download differs`);
  }
}

/** Every acknowledged registration logs in; every pinned shelf holds an acceptable list; the inbox holds every acknowledged addition. */
export async function checkAccountsAndShelves(base: string, token: string, ledger: Ledger, v: Violations): Promise<void> {
  for (const user of ledger.users) {
    const login = await api(base, '/api/auth/login', { method: 'POST', json: user });
    if (login.status !== 200) note(v, 'lost', `user ${user.username}: login ${login.status}`);
  }
  for (const [id, shelf] of ledger.shelves) {
    const got = await api(base, `/api/shelves/${id}`, { token });
    const actual = got.status === 200 ? (got.body.book_ids as string[]) : null;
    const match = actual && shelf.expected.find((list) => list.join() === actual.join());
    if (!match) note(v, 'lost', `shelf ${id}: ${got.status} ${actual?.length ?? '-'} books`);
    else shelf.expected = [match];
  }
  const inbox = await api(base, `/api/shelves/${ledger.inbox.id}`, { token });
  const onInbox = new Set<string>(inbox.status === 200 ? inbox.body.book_ids : []);
  for (const bookId of ledger.inbox.mustContain) if (!onInbox.has(bookId)) note(v, 'lost', `inbox lost ${bookId}`);
}
