import express, { type Request, type Response, type Router } from 'express';
import type { Actor } from '../../domain/actor.js';
import type { BookSort } from '../../domain/book.js';
import { bookNotFound, shelfNotFound } from '../../domain/error-catalogue.js';
import { BasicAuthenticator } from './basic-auth.js';
import type { OpdsDeps } from './opds-deps.js';
import { acquisitionFeed, entryDocument, navigationFeed, OPDS_RELS, OPDS_TYPES, openSearchDescription, ROOT, shelfItem } from './opds-feeds.js';
import { idOf, pageOf, searchTermsOf, sendBody, stream } from './opds-request.js';
import { hrefOf, V2 } from './opds2-links.js';
import { opds2Router } from './opds2-router.js';

export type { OpdsDeps } from './opds-deps.js';

export const OPDS_PAGE_SIZE = 20;
const NEWEST: BookSort = { field: 'added', descending: true };
const BY_TITLE: BookSort = { field: 'title', descending: false };

const sendXml = (res: Response, type: string, xml: string) => sendBody(res, `${type};charset=utf-8`, xml);

/**
 * The OPDS 1.2 catalog under /opds, for e-reader apps that speak HTTP Basic but not bearer tokens,
 * and the OPDS 2.0 catalog under /opds/v2 with the same authenticator.
 */
export function opdsRouter(deps: OpdsDeps): Router {
  const router = express.Router({ caseSensitive: true });
  const basic = new BasicAuthenticator(deps.login, deps.authenticate);
  router.use('/v2', opds2Router(deps, basic));
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
    sendXml(res, OPDS_TYPES.navigation, navigationFeed({ id: 'urn:stacks:opds:root', title: 'Stacks', self: ROOT, kind: 'navigation', twin: V2 }, items, null, now));
  });
  router.get('/recent', async (req, res) => {
    const head = { id: 'urn:stacks:opds:recent', title: 'Recently added', self: `${ROOT}/recent`, kind: 'acquisition', twin: `${V2}/recent` } as const;
    sendXml(res, OPDS_TYPES.acquisition, acquisitionFeed(head, await books(req, res, NEWEST), new Date()));
  });
  router.get('/books', async (req, res) => {
    const head = { id: 'urn:stacks:opds:books', title: 'All books', self: `${ROOT}/books`, kind: 'acquisition', twin: `${V2}/books` } as const;
    sendXml(res, OPDS_TYPES.acquisition, acquisitionFeed(head, await books(req, res, BY_TITLE), new Date()));
  });
  router.get('/search', async (req, res) => {
    const q = searchTermsOf(req, 'q');
    const self = `${ROOT}/search?q=${encodeURIComponent(q)}`;
    const twin = hrefOf({ path: `${V2}/search`, params: { query: q } });
    const head = { id: `urn:stacks:opds:search:${encodeURIComponent(q)}`, title: `Search: ${q}`, self, kind: 'acquisition', twin } as const;
    sendXml(res, OPDS_TYPES.acquisition, acquisitionFeed(head, await books(req, res, BY_TITLE, q), new Date()));
  });
  router.get('/opensearch.xml', (req, res) => sendXml(res, OPDS_TYPES.openSearch, openSearchDescription(deps.baseUrlOf(req))));
  router.get('/shelves', async (req, res) => {
    const page = await deps.listShelves.execute(actor(res), { onlyOwn: false, page: pageOf(req), pageSize: OPDS_PAGE_SIZE });
    const head = { id: 'urn:stacks:opds:shelves', title: 'Shelves', self: `${ROOT}/shelves`, kind: 'navigation', twin: `${V2}/shelves` } as const;
    sendXml(res, OPDS_TYPES.navigation, navigationFeed(head, page.items.map(shelfItem), page, new Date()));
  });
  router.get('/shelves/:id', async (req, res) => {
    const shelf = shelfItem(await deps.getShelf.execute(actor(res), idOf(req, shelfNotFound)));
    const page = await deps.listShelfBooks.execute(actor(res), { shelfId: shelf.shelfId, page: pageOf(req), pageSize: OPDS_PAGE_SIZE });
    const head = { id: shelf.id, title: shelf.title, self: shelf.href, kind: 'acquisition', twin: shelf.href.replace(ROOT, V2) } as const;
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
