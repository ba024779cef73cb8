/**
 * Shelves on a 10,000-book shelf: page 1 and page 500 of its books, adding a book, and creating or
 * replacing a shelf with 10,000 book_ids (with a /healthz probe alongside, to see the event loop
 * stall), beside GET /healthz in the same run.
 * Run: npx tsx bench/shelves.ts [--from dist|src] [--label text] [--no-write]
 */
import { rm } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { runLoad } from './lib/load.js';
import { runPaced } from './lib/paced.js';
import { appendResults, markdownTable } from './lib/results.js';
import { bearer, registerUser } from './lib/stacks-client.js';
import { buildStacks } from './lib/stacks-server.js';
import { seededDataDir } from './lib/seeded-store-cache.js';
import { startStacksOn } from './lib/source-stacks.js';
import { createSqliteStore } from '../src/adapters/sqlite/sqlite-store.js';
import { fmt, summarize } from './lib/stats.js';
import { generatedBook } from './lib/seed-books.js';

const { values } = parseArgs({ options: { from: { type: 'string', default: 'dist' }, label: { type: 'string', default: '' }, 'no-write': { type: 'boolean', default: false } } });
const source = values.from === 'src' ? 'src' : 'dist';
const log = (msg: string) => process.stderr.write(`[bench:shelves ${new Date().toISOString().slice(11, 19)}] ${msg}\n`);
const SHELF = 10_000;
const EXTRA = 300;

async function timed(fn: () => Promise<Response>): Promise<number> {
  const t0 = performance.now();
  const res = await fn();
  await res.arrayBuffer();
  if (!res.ok) throw new Error(`status ${res.status}`);
  return performance.now() - t0;
}

/** In-process, same run: the old existence check (full rows) against the new one (ids only), and the shelf writes. */
async function repositoryCosts(dataDir: string, ids: readonly string[]): Promise<(string | number)[][]> {
  const store = createSqliteStore(dataDir);
  const t: Record<string, number[]> = { findByIds: [], existingIds: [], create: [], replace: [] };
  const time = async (key: string, fn: () => Promise<unknown>) => {
    const t0 = performance.now();
    await fn();
    t[key]!.push(performance.now() - t0);
  };
  try {
    for (let i = 0; i < 7; i++) {
      await time('findByIds', () => store.books.findByIds(ids));
      await time('existingIds', () => store.books.existingIds(ids));
    }
    const now = new Date();
    for (let i = 0; i < 3; i++) {
      const shelf = { id: `bench-shelf-${i}`, name: `in-process ${i}`, description: null, isPublic: false, owner: { id: 'o', username: 'o' }, bookIds: ids, bookCount: ids.length, createdAt: now, updatedAt: now };
      await time('create', () => store.shelves.create(shelf));
      await time('replace', () => store.shelves.replaceBooks(shelf.id, [...ids].reverse(), now));
      await store.shelves.delete(shelf.id);
    }
  } finally {
    await store.close();
  }
  const row = (name: string, key: string) => [name, t[key]!.length, fmt(summarize(t[key]!).p50), fmt(summarize(t[key]!).max)];
  return [
    row(`\`BookRepository.findByIds\` (${ids.length} ids, full rows: the old check)`, 'findByIds'),
    row(`\`BookRepository.existingIds\` (${ids.length} ids: the new check)`, 'existingIds'),
    row(`\`ShelfRepository.create\` with ${ids.length} books`, 'create'),
    row(`\`ShelfRepository.replaceBooks\` with ${ids.length} books`, 'replace'),
  ];
}

async function main(): Promise<void> {
  const startedAt = new Date();
  if (source === 'dist') {
    log('building dist/');
    await buildStacks();
  }
  const dataDir = await seededDataDir(SHELF + EXTRA, log);
  const ids = Array.from({ length: SHELF + EXTRA }, (_, i) => generatedBook(i, { id: '', username: '' }).id);
  const inProcess = await repositoryCosts(dataDir, ids.slice(0, SHELF));
  const server = await startStacksOn({ dataDir, jwtSecret: 'bench-secret-0123456789-0123456789-0123456789', source });
  try {
    const { token } = await registerUser(server.url, 'shelver');
    const auth = { ...bearer(token), 'content-type': 'application/json' };
    const shelfIds = ids.slice(0, SHELF);
    const bulk: { create: number[]; replace: number[]; probeMax: number[]; probeP99: number[] } = { create: [], replace: [], probeMax: [], probeP99: [] };
    let shelfId = '';
    for (let i = 0; i < 5; i++) {
      const probe = runPaced({ rate: 100, durationMs: 3_000, next: () => ({ url: `${server.url}/healthz` }) });
      await new Promise((r) => setTimeout(r, 500));
      const t0 = performance.now();
      const res = await fetch(`${server.url}/api/shelves`, { method: 'POST', headers: auth, body: JSON.stringify({ name: `big ${i}`, book_ids: shelfIds }) });
      const body = (await res.json()) as { id: string };
      if (res.status !== 201) throw new Error(`create: ${res.status}`);
      bulk.create.push(performance.now() - t0);
      shelfId ||= body.id;
      const p = await probe;
      bulk.probeMax.push(p.latency.max);
      bulk.probeP99.push(p.latency.p99);
      bulk.replace.push(await timed(() => fetch(`${server.url}/api/shelves/${body.id}`, { method: 'PATCH', headers: auth, body: JSON.stringify({ book_ids: [...shelfIds].reverse() }) })));
    }
    const rows: (string | number)[][] = [];
    const measure = async (name: string, url: string, headers: Record<string, string>) => {
      await runLoad({ url, headers, connections: 1, amount: 5 });
      const r = await runLoad({ url, headers, connections: 1, amount: 200 });
      rows.push([name, r.latency.count, fmt(r.latency.p50), fmt(r.latency.p99), r.errors + r.non2xx]);
    };
    await measure('`GET /healthz` (baseline)', `${server.url}/healthz`, {});
    await measure('`GET /api/books/{id}` (baseline, authenticated)', `${server.url}/api/books/${ids[0]}`, bearer(token));
    await measure('`GET /api/shelves/{id}/books` page 1', `${server.url}/api/shelves/${shelfId}/books`, bearer(token));
    await measure('`GET /api/shelves/{id}/books` page 500', `${server.url}/api/shelves/${shelfId}/books?page=500`, bearer(token));
    await measure('`GET /api/shelves/{id}` (10,000 book_ids in the body)', `${server.url}/api/shelves/${shelfId}`, bearer(token));
    const adds: number[] = [];
    for (const bookId of ids.slice(SHELF)) adds.push(await timed(() => fetch(`${server.url}/api/shelves/${shelfId}/books/${bookId}`, { method: 'PUT', headers: bearer(token) })));
    const a = summarize(adds);
    rows.push([`\`PUT /api/shelves/{id}/books/{book_id}\` (add at the end of a ${SHELF}-book shelf)`, a.count, fmt(a.p50), fmt(a.p99), 0]);
    const c = summarize(bulk.create), r = summarize(bulk.replace);
    rows.push([`\`POST /api/shelves\` with ${SHELF} book_ids`, c.count, fmt(c.p50), fmt(c.max) + ' (max)', 0]);
    rows.push([`\`PATCH /api/shelves/{id}\` replacing ${SHELF} book_ids (reversed)`, r.count, fmt(r.p50), fmt(r.max) + ' (max)', 0]);
    const body = [
      `A shelf of ${SHELF.toLocaleString('en-US')} books (books seeded into SQLite, shelf built through the API), Stacks from ${source}/, sequential requests, page_size 20.`,
      '',
      markdownTable(['request', 'n', 'p50 ms', 'p99 ms', 'errors'], rows),
      '',
      'In-process on the same SQLite file, same run (the cost split of a 10,000-id shelf write):',
      '',
      markdownTable(['operation', 'n', 'p50 ms', 'max ms'], inProcess),
      '',
      `Event loop during each \`POST /api/shelves\` with ${SHELF} ids: a 100/s \`GET /healthz\` probe saw max ${bulk.probeMax.map((m) => fmt(m, 0)).join(', ')} ms (p99 ${bulk.probeP99.map((m) => fmt(m, 0)).join(', ')} ms).`,
    ].join('\n');
    process.stdout.write(`${body}\n`);
    if (!values['no-write']) await appendResults({ title: `Shelves: a 10,000-book shelf${values.label ? ` (${values.label})` : ''}`, command: `npx tsx bench/shelves.ts ${process.argv.slice(2).join(' ')}`.trim(), startedAt, body });
  } finally {
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
