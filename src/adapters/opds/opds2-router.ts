import express, { type Request, type Response, type Router } from 'express';
import type { Actor } from '../../domain/actor.js';
import type { BookSort } from '../../domain/book.js';
import { bookNotFound, shelfNotFound } from '../../domain/error-catalogue.js';
import { AuthenticationError } from '../../domain/errors.js';
import type { BasicAuthenticator } from './basic-auth.js';
import type { OpdsDeps } from './opds-deps.js';
import { OPDS_TYPES, ROOT } from './opds-feeds.js';
import { idOf, pageOf, pageSizeOf, searchTermsOf, sendBody, sortOf } from './opds-request.js';
import { AUTH_DOCUMENT_LINK_HEADER, authenticationDocument } from './opds2-authentication.js';
import { navigationFeed, publicationsFeed, shelfLink, type FeedHead } from './opds2-feeds.js';
import { OPDS2_RELS, OPDS2_TYPES, V2 } from './opds2-links.js';
import { publication } from './opds2-publication.js';
import { placeholderCoverPng, PLACEHOLDER_COVER } from './placeholder-cover.js';

const NEWEST: BookSort = { field: 'added', descending: true };
const BY_TITLE: BookSort = { field: 'title', descending: false };
const acquisition12 = (href: string) => ({ href, type: OPDS_TYPES.acquisition });
const json = (res: Response, type: string, body: unknown) => sendBody(res, type, JSON.stringify(body));

/**
 * The OPDS 2.0 catalog, mounted at /opds/v2 by the OPDS router and sharing its Basic authenticator
 * (the same login throttle). The authentication document is open to all; any other request without
 * valid credentials is a 401 carrying that document (Authentication for OPDS 1.0, section 2.4).
 * Downloads and covers are the OPDS 1.2 routes, behind the same credentials.
 */
export function opds2Router(deps: OpdsDeps, basic: BasicAuthenticator): Router {
  const router = express.Router({ caseSensitive: true });
  const document = (req: Request) => authenticationDocument(deps.baseUrlOf(req));
  router.get('/auth', (req, res) => json(res, OPDS2_TYPES.authentication, document(req)));
  router.use(async (req, res, next) => {
    try {
      res.locals['actor'] = await basic.actor(req, res);
    } catch (error) {
      if (!(error instanceof AuthenticationError)) throw error;
      res.status(401).setHeader('Link', AUTH_DOCUMENT_LINK_HEADER);
      return json(res, OPDS2_TYPES.authentication, document(req));
    }
    next();
  });
  const actor = (res: Response): Actor => res.locals['actor'] as Actor;
  const paging = (req: Request) => ({ page: pageOf(req), pageSize: pageSizeOf(req) });
  const sizeParam = (req: Request) => (req.query['page_size'] === undefined ? undefined : String(pageSizeOf(req)));

  router.get('/', (_req, res) => {
    const feed = { title: 'Stacks', address: { path: V2 }, twin: { href: ROOT, type: OPDS_TYPES.navigation } };
    json(res, OPDS2_TYPES.feed, navigationFeed(feed, [
      { rel: OPDS2_RELS.sortNew, href: `${V2}/recent`, type: OPDS2_TYPES.feed, title: 'Recently added' },
      { rel: 'subsection', href: `${V2}/books`, type: OPDS2_TYPES.feed, title: 'All books' },
      { rel: 'subsection', href: `${V2}/shelves`, type: OPDS2_TYPES.feed, title: 'Shelves' },
    ], null));
  });
  router.get('/recent', async (req, res) => {
    const page = await deps.listBooks.execute(actor(res), { sort: NEWEST, ...paging(req) });
    const feed = { title: 'Recently added', address: { path: `${V2}/recent`, params: { page_size: sizeParam(req) } }, twin: acquisition12(`${ROOT}/recent`) };
    json(res, OPDS2_TYPES.feed, publicationsFeed(feed, page));
  });
  router.get('/books', async (req, res) => {
    const sort = sortOf(req, BY_TITLE);
    const page = await deps.listBooks.execute(actor(res), { sort, ...paging(req) });
    const params = { sort: req.query['sort'] as string | undefined, page_size: sizeParam(req) };
    const feed = { title: 'All books', address: { path: `${V2}/books`, params }, twin: acquisition12(`${ROOT}/books`) };
    json(res, OPDS2_TYPES.feed, publicationsFeed(feed, page, sort));
  });
  router.get('/search', async (req, res) => {
    const query = searchTermsOf(req, 'query');
    const sort = sortOf(req, BY_TITLE);
    const page = await deps.listBooks.execute(actor(res), { q: query, sort, ...paging(req) });
    const params = { query, sort: req.query['sort'] as string | undefined, page_size: sizeParam(req) };
    const twin = acquisition12(`${ROOT}/search?q=${encodeURIComponent(query)}`);
    const none = { title: `No books match “${query}”: browse all books`, href: `${V2}/books` };
    json(res, OPDS2_TYPES.feed, publicationsFeed({ title: `Search: ${query}`, address: { path: `${V2}/search`, params }, twin }, page, sort, none));
  });
  router.get('/shelves', async (req, res) => {
    const page = await deps.listShelves.execute(actor(res), { onlyOwn: false, ...paging(req) });
    const feed = { title: 'Shelves', address: { path: `${V2}/shelves`, params: { page_size: sizeParam(req) } }, twin: { href: `${ROOT}/shelves`, type: OPDS_TYPES.navigation } };
    json(res, OPDS2_TYPES.feed, navigationFeed(feed, page.items.map(shelfLink), page, { title: 'No shelves yet: browse all books', href: `${V2}/books` }));
  });
  router.get('/shelves/:id', async (req, res) => {
    const shelf = await deps.getShelf.execute(actor(res), idOf(req, shelfNotFound));
    const page = await deps.listShelfBooks.execute(actor(res), { shelfId: shelf.id, ...paging(req) });
    const path = shelfLink(shelf).href;
    const feed: FeedHead = { title: shelf.name, address: { path, params: { page_size: sizeParam(req) } }, twin: acquisition12(path.replace(V2, ROOT)) };
    json(res, OPDS2_TYPES.feed, publicationsFeed(feed, page, undefined, { title: 'This shelf has no books yet: back to the shelves', href: `${V2}/shelves` }));
  });
  router.get('/books/:id', async (req, res) => {
    json(res, OPDS2_TYPES.publication, publication(await deps.getBook.execute(actor(res), idOf(req, bookNotFound))));
  });
  router.get('/covers/placeholder.png', (_req, res) => {
    res.setHeader('Content-Type', PLACEHOLDER_COVER.mediaType);
    res.send(placeholderCoverPng);
  });
  return router;
}
