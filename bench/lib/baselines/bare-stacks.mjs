// Baseline for bench/bare.ts: node:http + better-sqlite3 running Stacks' own SQL (its SQLite book
// repository, compiled in dist/) on Stacks' database file, answering GET /api/books (q, author, tag,
// format, sort, page, page_size) and GET /api/books/{id} with the bodies Stacks answers (its book presenter;
// the list envelope is written out here so the baseline does not load zod, and bench/bare.ts checks every
// body byte-identical). No authentication, validation, logging, limits or security headers. Env: DATA_DIR, PORT;
// EXPRESS=1: the same handlers as Express 5 routes (one app, three routes, no middleware, no ETag or
// X-Powered-By), to show what Express itself costs before any of Stacks' middleware runs.
import { createServer } from 'node:http';
import { presentBook } from '../../../dist/adapters/http/presenters/book-presenter.js';
import { SqliteBookRepository } from '../../../dist/adapters/sqlite/sqlite-book-repository.js';
import { openSqliteDatabase } from '../../../dist/adapters/sqlite/sqlite-database.js';
import { pageOf } from '../../../dist/domain/page.js';

const db = openSqliteDatabase(process.env.DATA_DIR);
const books = new SqliteBookRepository(db);
const BOOK = /^\/api\/books\/([^/?]+)$/;

function send(res, status, value) {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

async function list(url) {
  const p = url.searchParams;
  const sort = p.get('sort') ?? '-added';
  const query = {
    q: p.get('q')?.trim() || undefined,
    author: p.get('author') ?? undefined,
    tag: p.get('tag') ?? undefined,
    format: p.get('format') ?? undefined,
    sort: { field: sort.replace(/^-/, ''), descending: sort.startsWith('-') },
    page: Number(p.get('page') ?? 1),
    pageSize: Number(p.get('page_size') ?? 20),
  };
  const { items, total } = await books.search(query);
  const page = pageOf(items, total, query);
  return { items: page.items.map(presentBook), total: page.total, page: page.page, page_size: page.pageSize, total_pages: page.totalPages };
}

function answer(res, body) {
  body.then((value) => send(res, value ? 200 : 404, value ?? { code: 'not_found' }), (error) => send(res, 500, { message: String(error) }));
}

const one = (id) => books.findById(id).then((book) => book && presentBook(book));

// Express is loaded only for EXPRESS=1: the bare server's start-up (bench/startup.ts) stays without it.
async function expressApp() {
  const { default: express } = await import('express');
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.get('/api/books', (req, res) => answer(res, list(new URL(req.url, 'http://bare'))));
  app.get('/api/books/:id', (req, res) => answer(res, one(req.params.id)));
  app.get('/readyz', (_req, res) => answer(res, Promise.resolve({ status: 'ready' })));
  return app;
}

const server = process.env.EXPRESS === '1' ? createServer(await expressApp()) : createServer((req, res) => {
  const url = new URL(req.url, 'http://bare');
  answer(res, url.pathname === '/api/books' ? list(url)
    : BOOK.test(url.pathname) ? one(decodeURIComponent(BOOK.exec(url.pathname)[1]))
      : Promise.resolve(url.pathname === '/readyz' ? { status: 'ready' } : null));
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => {
  db.close();
  process.exit(0);
}));
