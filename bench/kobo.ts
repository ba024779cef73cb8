/**
 * Kobo sync on SQLite: a full first sync of the seeded library (100,000 books by default, about half of
 * them EPUB or PDF) page by page as a Kobo asks (`x-kobo-synctoken`, `x-kobo-sync: continue`), an
 * incremental sync with nothing new, and the KEPUB conversion of a 5 MB EPUB (first download converts,
 * the second is served from the cache); GET /healthz in the same run as the baseline.
 * Targets: every sync page p99 < 1 s; the full first sync well under a Kobo's ~30 s per request;
 * an empty incremental sync < 50 ms; the 5 MB KEPUB < 2 s, once.
 * Run: npx tsx bench/kobo.ts [--books 100000] [--source dist|src] [--label text] [--no-write]
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import yazl from 'yazl';
import { loadSqliteDriver } from '../src/adapters/sqlite/sqlite-driver.js';
import { CONTAINER_XML } from '../test/support/fixtures/epub.js';
import { writeZipFile } from '../test/support/fixtures/zip.js';
import { benchOpf } from './lib/book-bytes.js';
import { uploadFileStreaming } from './lib/multipart-file.js';
import { appendResults, markdownTable } from './lib/results.js';
import { seededDataDir } from './lib/seeded-store-cache.js';
import { bearer, registerUser } from './lib/stacks-client.js';
import { buildStacks } from './lib/stacks-server.js';
import { startStacksOn, type StacksSource } from './lib/source-stacks.js';
import { fmt, summarize } from './lib/stats.js';

const { values } = parseArgs({
  options: {
    books: { type: 'string', default: '100000' },
    source: { type: 'string', default: 'dist' },
    label: { type: 'string', default: '' },
    'no-write': { type: 'boolean', default: false },
  },
});
const log = (msg: string) => process.stderr.write(`[bench:kobo ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const secret = 'bench-secret-0123456789-0123456789-0123456789';
const KOBO = { 'user-agent': 'Mozilla/5.0 (Kobo Touch 0387/4.41.23145)', 'x-kobo-deviceid': 'bench-kobo' };

/** The seeded books enter the change feed as migration 10 and housekeeping would put them there. */
function feedSeededBooks(dataDir: string): void {
  const Sqlite = loadSqliteDriver();
  const db = new Sqlite(join(dataDir, 'stacks.db'));
  db.exec(`INSERT INTO change_feed (first_seq, kind, entity_id, group_id, removed, changed_at)
    SELECT 0, 'book', id, '', 0, updated_at FROM books WHERE NOT EXISTS (SELECT 1 FROM change_feed WHERE kind = 'book' AND entity_id = books.id)
    ORDER BY created_at, id; UPDATE change_feed SET first_seq = seq WHERE first_seq = 0;`);
  db.close();
}

/** A 5 MB EPUB: 40 chapters of prose (about 3 MB of XHTML, 0.5 MB deflated) and 4.5 MB of images. */
async function writeProseEpub(path: string): Promise<void> {
  const sentence = (i: number) => `The ${['lamp', 'sea', 'keeper', 'gull', 'tide'][i % 5]} ${['burned', 'turned', 'waited', 'slept', 'called'][i % 5]} for ${i} nights. `;
  const chapter = (c: number) => `<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head><title>${c}</title></head><body><h1>Chapter ${c}</h1>${
    Array.from({ length: 250 }, (_, p) => `<p>${Array.from({ length: 7 }, (__, s) => sentence(c * 2000 + p * 7 + s)).join('')}<em>Yes.</em></p>`).join('\n')}</body></html>`;
  await writeZipFile(path, (zip: yazl.ZipFile) => {
    zip.addBuffer(Buffer.from('application/epub+zip'), 'mimetype', { compress: false });
    zip.addBuffer(Buffer.from(CONTAINER_XML('OEBPS/content.opf')), 'META-INF/container.xml');
    const items = Array.from({ length: 40 }, (_, c) => `<item id="c${c}" href="c${c}.xhtml" media-type="application/xhtml+xml"/>`).join('');
    zip.addBuffer(Buffer.from(benchOpf('Five Megabytes', 'Bench Author', 'large').replace('</manifest>', `${items}</manifest>`)), 'OEBPS/content.opf');
    for (let c = 0; c < 40; c++) zip.addBuffer(Buffer.from(chapter(c)), `OEBPS/c${c}.xhtml`);
    for (let i = 0; i < 18; i++) zip.addBuffer(randomBytes(256 * 1024), `OEBPS/images/plate${i}.jpg`, { compress: false });
  });
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const value = await work();
  return [value, performance.now() - t0];
}

async function main(): Promise<void> {
  const startedAt = new Date();
  const count = Number(values.books);
  const source = values.source as StacksSource;
  if (source === 'dist') {
    log('building dist/');
    await buildStacks();
  }
  const dataDir = await seededDataDir(count, log);
  feedSeededBooks(dataDir);
  const server = await startStacksOn({ dataDir, jwtSecret: secret, source });
  const epub = join(tmpdir(), `stacks-kobo-bench-${process.pid}.epub`);
  try {
    const { token } = await registerUser(server.url, 'reader');
    const device = await (await fetch(`${server.url}/api/auth/kobo`, { method: 'POST', headers: { ...bearer(token), 'content-type': 'application/json' }, body: JSON.stringify({ name: 'bench' }) })).json() as { url: string };
    const base = device.url.replace(/^https?:\/\/[^/]+/, server.url);
    const sync = async (syncToken?: string) => {
      const res = await fetch(`${base}/v1/library/sync`, { headers: { ...KOBO, ...(syncToken ? { 'x-kobo-synctoken': syncToken } : {}) } });
      const items = (await res.json()) as unknown[];
      if (res.status !== 200) throw new Error(`sync ${res.status}`);
      return { items: items.length, token: res.headers.get('x-kobo-synctoken')!, more: res.headers.get('x-kobo-sync') === 'continue' };
    };
    const health = [];
    for (let i = 0; i < 200; i++) health.push((await timed(() => fetch(`${server.url}/healthz`).then((r) => r.text())))[1]);

    log('first sync');
    const pages: number[] = [];
    let entitlements = 0;
    let syncToken: string | undefined;
    const [, firstTotal] = await timed(async () => {
      for (;;) {
        const [page, ms] = await timed(() => sync(syncToken));
        pages.push(ms);
        entitlements += page.items;
        syncToken = page.token;
        if (!page.more) break;
      }
    });
    log(`first sync: ${pages.length} pages, ${entitlements} items, ${fmt(firstTotal / 1000)} s`);
    const empty = [];
    for (let i = 0; i < 200; i++) {
      const [page, ms] = await timed(() => sync(syncToken));
      if (page.items !== 0) throw new Error('an incremental sync with nothing new sent items');
      empty.push(ms);
    }

    log('KEPUB of a 5 MB EPUB');
    await writeProseEpub(epub);
    const uploaded = await uploadFileStreaming(server.url, token, epub, 'five-megabytes.epub');
    const id = (JSON.parse(uploaded.body) as { id: string }).id;
    const download = () => fetch(`${base}/v1/books/${id}/file`, { headers: KOBO }).then(async (r) => [r.headers.get('content-disposition'), (await r.arrayBuffer()).byteLength] as const);
    const [[firstName, kepubBytes], convertMs] = await timed(download);
    const [, cachedMs] = await timed(download);
    if (!String(firstName).includes('kepub')) throw new Error('the download was not a KEPUB');

    const p = summarize(pages);
    const e = summarize(empty);
    const h = summarize(health);
    const rows = [
      ['`GET /healthz` (baseline, 200 sequential)', 200, fmt(h.p50), fmt(h.p99), fmt(h.max)],
      [`first sync page (${pages.length} pages, ${entitlements.toLocaleString('en-US')} entitlements)`, pages.length, fmt(p.p50), fmt(p.p99), fmt(p.max)],
      ['incremental sync, nothing new (200 sequential)', 200, fmt(e.p50), fmt(e.p99), fmt(e.max)],
    ];
    const body = [
      `### Kobo sync on ${count.toLocaleString('en-US')} books (SQLite, Stacks from ${source}/)`, '',
      markdownTable(['request', 'n', 'p50 ms', 'p99 ms', 'max ms'], rows), '',
      `Full first sync: ${fmt(firstTotal / 1000)} s over ${pages.length} requests (a Kobo gives up on one request after about 30 s; the slowest page took ${fmt(p.max)} ms).`,
      `KEPUB of a 5 MB EPUB (40 chapters, 4.5 MB of images): first download (converts) ${fmt(convertMs)} ms, second (cached) ${fmt(cachedMs)} ms, ${kepubBytes.toLocaleString('en-US')} bytes.`,
      `Targets: page p99 < 1000 ms (${fmt(p.p99)}), empty incremental < 50 ms (p99 ${fmt(e.p99)}), KEPUB < 2000 ms (${fmt(convertMs)}).`,
    ].join('\n');
    process.stdout.write(`${body}\n`);
    if (!values['no-write']) {
      await appendResults({ title: `Kobo sync${values.label ? ` (${values.label})` : ''}`, command: `npx tsx bench/kobo.ts ${process.argv.slice(2).join(' ')}`.trim(), startedAt, body });
    }
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(epub, { force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
