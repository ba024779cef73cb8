import express, { type Request, type Response, type Router } from 'express';
import { pipeline } from 'node:stream/promises';
import type { Authenticate } from '../../application/use-cases/authenticate.js';
import type { GetBook } from '../../application/use-cases/get-book.js';
import type { GetBookCover } from '../../application/use-cases/get-book-cover.js';
import type { GetBookFile } from '../../application/use-cases/get-book-file.js';
import type { GetShelf } from '../../application/use-cases/get-shelf.js';
import type { ListBooks } from '../../application/use-cases/list-books.js';
import type { ListShelfBooks } from '../../application/use-cases/list-shelf-books.js';
import type { ListShelves } from '../../application/use-cases/list-shelves.js';
import type { LoginUser } from '../../application/use-cases/login-user.js';
import type { Actor } from '../../domain/actor.js';
import { BOOK_QUERY_MAX_LENGTH, type BookSort } from '../../domain/book.js';
import { bookNotFound, invalidInput, shelfNotFound } from '../../domain/error-catalogue.js';
import { NotFoundError } from '../../domain/errors.js';
import { BasicAuthenticator } from './basic-auth.js';
import { acquisitionFeed, entryDocument, navigationFeed, OPDS_RELS, OPDS_TYPES, openSearchDescription, ROOT, shelfItem } from './opds-feeds.js';

export interface OpdsDeps {
  readonly login: LoginUser;
  /** Re-checks a remembered Basic login like a bearer token (disabled, password changed, roles). */
  readonly authenticate: Authenticate;
  readonly listBooks: ListBooks;
  readonly getBook: GetBook;
  readonly file: GetBookFile;
  readonly cover: GetBookCover;
  readonly listShelves: ListShelves;
  readonly getShelf: GetShelf;
  readonly listShelfBooks: ListShelfBooks;
  /** PUBLIC_URL, for the absolute search template. */
  readonly publicUrl: string;
}

export const OPDS_PAGE_SIZE = 20;
const ID = /^[A-Za-z0-9_-]{1,64}$/;
const NEWEST: BookSort = { field: 'added', descending: true };
const BY_TITLE: BookSort = { field: 'title', descending: false };

function pageOf(req: Request): number {
  const raw = req.query['page'];
  if (raw === undefined) return 1;
  if (typeof raw === 'string' && /^[1-9]\d{0,5}$/.test(raw)) return Number(raw);
  throw queryError('page', 'must be a whole number from 1');
}

function searchTerms(req: Request): string {
  const q = req.query['q'];
  const terms = typeof q === 'string' ? q.trim() : '';
  if (terms === '' || terms.length > BOOK_QUERY_MAX_LENGTH) {
    throw queryError('q', `must be 1-${BOOK_QUERY_MAX_LENGTH} characters`);
  }
  return terms;
}

/** A query parameter error; the field names its part so the error handler does not say `body`. */
const queryError = (field: string, message: string) => invalidInput('The request query is invalid.', [{ location: 'query', field, message }]);

function idOf(req: Request, notFound: (id: string) => NotFoundError): string {
  const id = String(req.params['id']);
  if (!ID.test(id)) throw notFound(id.slice(0, 64));
  return id;
}

function sendXml(res: Response, type: string, xml: string): void {
  res.setHeader('Content-Type', `${type};charset=utf-8`);
  res.send(Buffer.from(xml, 'utf8'));
}

async function stream(req: Request, res: Response, body: () => Promise<AsyncIterable<Uint8Array>>): Promise<void> {
  if (req.method === 'HEAD') return void res.end();
  await pipeline(await body(), res).catch((error: unknown) => {
    if ((error as { code?: string }).code !== 'ERR_STREAM_PREMATURE_CLOSE') throw error;
  });
}

/** The OPDS 1.2 catalog under /opds, for e-reader apps that speak HTTP Basic but not bearer tokens. */
export function opdsRouter(deps: OpdsDeps): Router {
  const router = express.Router();
  const basic = new BasicAuthenticator(deps.login, deps.authenticate);
  router.use(async (req, res, next) => {
    res.locals['actor'] = await basic.actor(req, res);
    next();
  });
  const actor = (res: Response): Actor => res.locals['actor'] as Actor;
  const books = (req: Request, res: Response, sort: BookSort, q?: string) =>
    deps.listBooks.execute(actor(res), { q, sort, page: pageOf(req), pageSize: OPDS_PAGE_SIZE });

  router.get('/', (_req, res) => {
    const now = new Date();
    const items = [
      { id: 'urn:stacks:opds:recent', title: 'Recently added', text: 'The newest books first', href: `${ROOT}/recent`, rel: OPDS_RELS.sortNew, kind: 'acquisition', updated: now },
      { id: 'urn:stacks:opds:books', title: 'All books', text: 'Every book, by title', href: `${ROOT}/books`, rel: 'subsection', kind: 'acquisition', updated: now },
      { id: 'urn:stacks:opds:shelves', title: 'Shelves', text: 'Your shelves and every public shelf', href: `${ROOT}/shelves`, rel: 'subsection', kind: 'navigation', updated: now },
    ] as const;
    sendXml(res, OPDS_TYPES.navigation, navigationFeed({ id: 'urn:stacks:opds:root', title: 'Stacks', self: ROOT, kind: 'navigation' }, items, null, now));
  });
  router.get('/recent', async (req, res) => {
    const head = { id: 'urn:stacks:opds:recent', title: 'Recently added', self: `${ROOT}/recent`, kind: 'acquisition' } as const;
    sendXml(res, OPDS_TYPES.acquisition, acquisitionFeed(head, await books(req, res, NEWEST), new Date()));
  });
  router.get('/books', async (req, res) => {
    const head = { id: 'urn:stacks:opds:books', title: 'All books', self: `${ROOT}/books`, kind: 'acquisition' } as const;
    sendXml(res, OPDS_TYPES.acquisition, acquisitionFeed(head, await books(req, res, BY_TITLE), new Date()));
  });
  router.get('/search', async (req, res) => {
    const q = searchTerms(req);
    const self = `${ROOT}/search?q=${encodeURIComponent(q)}`;
    const head = { id: `urn:stacks:opds:search:${encodeURIComponent(q)}`, title: `Search: ${q}`, self, kind: 'acquisition' } as const;
    sendXml(res, OPDS_TYPES.acquisition, acquisitionFeed(head, await books(req, res, BY_TITLE, q), new Date()));
  });
  router.get('/opensearch.xml', (_req, res) => sendXml(res, OPDS_TYPES.openSearch, openSearchDescription(deps.publicUrl)));
  router.get('/shelves', async (req, res) => {
    const page = await deps.listShelves.execute(actor(res), { onlyOwn: false, page: pageOf(req), pageSize: OPDS_PAGE_SIZE });
    const head = { id: 'urn:stacks:opds:shelves', title: 'Shelves', self: `${ROOT}/shelves`, kind: 'navigation' } as const;
    sendXml(res, OPDS_TYPES.navigation, navigationFeed(head, page.items.map(shelfItem), page, new Date()));
  });
  router.get('/shelves/:id', async (req, res) => {
    const shelf = shelfItem(await deps.getShelf.execute(actor(res), idOf(req, shelfNotFound)));
    const page = await deps.listShelfBooks.execute(actor(res), { shelfId: shelf.shelfId, page: pageOf(req), pageSize: OPDS_PAGE_SIZE });
    const head = { id: shelf.id, title: shelf.title, self: shelf.href, kind: 'acquisition' } as const;
    sendXml(res, OPDS_TYPES.acquisition, acquisitionFeed(head, page, new Date()));
  });
  router.get('/books/:id', async (req, res) => {
    sendXml(res, OPDS_TYPES.entry, entryDocument(await deps.getBook.execute(actor(res), idOf(req, bookNotFound))));
  });
  router.get('/books/:id/file', async (req, res) => {
    const file = await deps.file.execute(actor(res), idOf(req, bookNotFound));
    res.attachment(file.fileName);
    res.setHeader('Content-Type', file.mediaType);
    res.setHeader('Content-Length', String(file.size));
    res.setHeader('ETag', file.etag);
    await stream(req, res, () => file.open());
  });
  router.get('/books/:id/cover', async (req, res) => {
    const cover = await deps.cover.execute(actor(res), idOf(req, bookNotFound));
    res.setHeader('Content-Type', cover.mediaType);
    await stream(req, res, async () => cover.body);
  });
  return router;
}
