import { createHash } from 'node:crypto';
import { benchEpub, benchText } from './book-bytes.js';
import type { SeededRandom } from './seeded-random.js';

/** What the harness knows was acknowledged (a 2xx came back) and what is still in doubt. */
export interface Ledger {
  /** Acknowledged books by SHA-256. */
  readonly books: Map<string, { id: string; size: number; cycle: number }>;
  readonly users: { username: string; password: string }[];
  /** Shelves whose book list is pinned: every list in `expected` is acceptable (more than one after an unacknowledged PATCH). */
  readonly shelves: Map<string, { expected: string[][]; patched: boolean }>;
  /** The shelf that only ever gets PUT additions: every acknowledged addition must be on it. */
  inbox: { id: string; mustContain: Set<string> };
  /** Uploads that got no answer (in flight at the kill): retried after the restart. */
  pendingUploads: Upload[];
  acknowledged: number;
}

export interface Upload {
  readonly fileName: string;
  readonly bytes: Buffer;
  readonly sha256: string;
}

export interface ApiAnswer {
  readonly status: number;
  readonly body: any;
}

/** One request; a network failure (the server was killed) is status 0. */
export async function api(base: string, path: string, init: { method?: string; token?: string; json?: unknown; form?: FormData } = {}): Promise<ApiAnswer> {
  const headers: Record<string, string> = {};
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  if (init.json !== undefined) headers['content-type'] = 'application/json';
  try {
    const res = await fetch(`${base}${path}`, {
      method: init.method ?? 'GET',
      headers,
      body: init.form ?? (init.json === undefined ? undefined : JSON.stringify(init.json)),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await res.text();
    return { status: res.status, body: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
  } catch {
    return { status: 0, body: null };
  }
}

export const ok = (a: ApiAnswer) => a.status >= 200 && a.status < 300;
export const sha256 = (bytes: Buffer | Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Sends one multipart upload of `upload`. */
export function sendUpload(base: string, token: string, upload: Upload): Promise<ApiAnswer> {
  const form = new FormData();
  form.append('file', new Blob([upload.bytes]), upload.fileName);
  return api(base, '/api/books', { method: 'POST', token, form });
}

/** Distinct seeded books: EPUBs and plain text, 10 KB to 400 KB. */
export async function makeUploads(cycle: number, count: number, rnd: SeededRandom): Promise<Upload[]> {
  const uploads: Upload[] = [];
  for (let i = 0; i < count; i++) {
    const title = `Crash c${cycle} u${i} ${rnd.int(0, 1e9)}`;
    const size = rnd.int(10_000, 400_000);
    const epub = i % 2 === 0;
    const bytes = epub ? await benchEpub(title, `Author ${cycle}-${i}`, rnd, size) : benchText(title, rnd, size);
    uploads.push({ fileName: `${title}.${epub ? 'epub' : 'txt'}`, bytes, sha256: sha256(bytes) });
  }
  return uploads;
}

/** Records an upload's answer: 201 or 409 (same bytes already stored) both mean the bytes are kept. */
export function recordUpload(ledger: Ledger, upload: Upload, answer: ApiAnswer, cycle: number): void {
  const id = answer.status === 201 ? answer.body.id : answer.status === 409 ? answer.body.book_id : null;
  if (typeof id === 'string') {
    ledger.books.set(upload.sha256, { id, size: upload.bytes.length, cycle });
    ledger.acknowledged += 1;
  } else if (answer.status === 0) {
    ledger.pendingUploads.push(upload);
  } else {
    throw new Error(`upload ${upload.fileName}: unexpected ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
  }
}
