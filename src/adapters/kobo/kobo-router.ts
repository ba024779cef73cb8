import { pipeline } from 'node:stream/promises';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { AuthenticateKoboDevice, KoboSession } from '../../application/use-cases/authenticate-kobo-device.js';
import type { GetKoboBookFile } from '../../application/use-cases/get-kobo-book-file.js';
import type { GetKoboCover } from '../../application/use-cases/get-kobo-cover.js';
import type { GetProgress } from '../../application/use-cases/get-progress.js';
import type { ArchiveKoboBook, GetKoboBook } from '../../application/use-cases/kobo-library.js';
import type { SyncKoboLibrary } from '../../application/use-cases/sync-kobo-library.js';
import type { UpdateProgress } from '../../application/use-cases/update-progress.js';
import { bookNotFound, hasCodeOf, invalidInput } from '../../domain/error-catalogue.js';
import { koboJson } from './kobo-body.js';
import { KOBO_STORE_RESOURCES } from './kobo-resources.js';
import { progressFromKobo } from './kobo-state.js';
import type { KoboStore } from './kobo-store.js';
import type { KoboSyncTokens } from './kobo-sync-token.js';
import { koboTagRoutes, type KoboTagDeps } from './kobo-tags.js';
import { bookMetadata, koboTime, readingState, syncItems } from './kobo-wire.js';

export interface KoboDeps extends KoboTagDeps {
  readonly authenticate: AuthenticateKoboDevice;
  readonly sync: SyncKoboLibrary;
  readonly tokens: KoboSyncTokens;
  /** The book as the device may open it: 404 outside its scope (its shelves, Kobo formats), as the file. */
  readonly book: GetKoboBook;
  readonly getProgress: GetProgress;
  readonly updateProgress: UpdateProgress;
  readonly archive: ArchiveKoboBook;
  readonly file: GetKoboBookFile;
  readonly cover: GetKoboCover;
  /** Set when KOBO_STORE_FORWARDING is on. */
  readonly store: KoboStore | null;
  readonly clock: { now(): Date };
  /** PUBLIC_URL when set, else the request's validated scheme and host: the base of every URL a device follows. */
  readonly baseUrlOf: (req: Request) => string;
}

const SYNC_TOKEN = 'x-kobo-synctoken';
const STORE_HOST = 'https://storeapi.kobo.com/';
const CDN_IMAGE = 'https://cdn.kobo.com/book-images';

export const sessionOf = (res: Response): KoboSession => res.locals['koboSession'] as KoboSession;
/** The device's own base: PUBLIC_URL or the validated scheme and host it reached Stacks by, and its sync URL path. */
const deviceBase = (req: Request, deps: Pick<KoboDeps, 'baseUrlOf'>): string => `${deps.baseUrlOf(req)}${req.baseUrl}`;
const json = (res: Response, status: number, body: unknown) => res.status(status).type('application/json; charset=utf-8').send(JSON.stringify(body));

/**
 * The Kobo store API under `/kobo/{secret}` (docs/kobo.md lists every route and field): the secret is
 * checked before anything else, in the secret-check lane; what Stacks does not serve is answered with
 * the empty answers a Kobo accepts, or forwarded to the Kobo store when KOBO_STORE_FORWARDING is on.
 */
export function koboRouter(deps: KoboDeps): Router {
  // One spelling per path: /KOBO/... or /v1/Library/... is not a second door.
  const outer = express.Router({ caseSensitive: true });
  const router = express.Router({ mergeParams: true, caseSensitive: true });
  outer.use('/:secret', signIn(deps), router);
  const forwardOr = async (req: Request, res: Response, fallback: () => void, body?: Buffer) => {
    const answer = deps.store ? await deps.store.forward(req, req.path, body) : null;
    if (!answer) return fallback();
    for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
    json(res, answer.status, answer.body);
  };
  const ours = async <T>(req: Request, res: Response, work: () => Promise<T>): Promise<T | null> => {
    try {
      return await work();
    } catch (error) {
      if (deps.store && hasCodeOf(error, () => bookNotFound(String(req.params['id'])))) {
        await forwardOr(req, res, () => json(res, 404, {}));
        return null;
      }
      throw error;
    }
  };

  router.get('/v1/initialization', async (req, res) => {
    const base = deviceBase(req, deps);
    const forwarded = deps.store ? await deps.store.forward(req, req.path) : null;
    const fromStore = (forwarded?.body as { Resources?: Record<string, unknown> } | undefined)?.Resources;
    const resources: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(fromStore ?? KOBO_STORE_RESOURCES)) {
      resources[key] = !fromStore && typeof value === 'string' && value.startsWith(STORE_HOST) ? `${base}/${value.slice(STORE_HOST.length)}` : value;
    }
    Object.assign(resources, {
      image_host: base,
      image_url_template: `${base}/v1/books/{ImageId}/thumbnail/{Width}/{Height}/false/image.jpg`,
      image_url_quality_template: `${base}/v1/books/{ImageId}/thumbnail/{Width}/{Height}/{Quality}/{IsGreyscale}/image.jpg`,
      library_sync: `${base}/v1/library/sync`,
    });
    res.setHeader('x-kobo-apitoken', 'e30=');
    json(res, 200, { Resources: resources });
  });

  router.post(['/v1/auth/device', '/v1/auth/refresh'], koboJson('16kb'), async (req, res) => {
    await forwardOr(req, res, () => {
      const userKey = typeof (req.body as { UserKey?: unknown } | undefined)?.UserKey === 'string' ? (req.body as { UserKey: string }).UserKey.slice(0, 200) : '';
      json(res, 200, { AccessToken: randomToken(), RefreshToken: randomToken(), TokenType: 'Bearer', TrackingId: crypto.randomUUID(), UserKey: userKey });
    }, Buffer.from(JSON.stringify(req.body ?? {})));
  });

  router.get('/v1/library/sync', async (req, res) => {
    const session = sessionOf(res);
    const token = deps.tokens.decode(req.get(SYNC_TOKEN));
    const page = await deps.sync.execute(session, token.cursor);
    const base = deviceBase(req, deps);
    const now = deps.clock.now();
    const items = page.events.flatMap((e) => syncItems(e, (id) => `${base}/v1/books/${id}/file`, now));
    let more = page.more;
    let storeToken = token.storeToken;
    if (!more && deps.store) {
      const answer = await deps.store.forward(req, req.path, undefined, storeToken);
      if (answer && Array.isArray(answer.body)) {
        items.push(...(answer.body as object[]));
        storeToken = answer.headers[SYNC_TOKEN] ?? storeToken;
        more = answer.headers['x-kobo-sync'] === 'continue';
      }
    }
    res.setHeader(SYNC_TOKEN, deps.tokens.encode({ cursor: page.cursor, storeToken }));
    if (more) res.setHeader('x-kobo-sync', 'continue');
    json(res, 200, items);
  });

  router.get('/v1/library/:id/metadata', async (req, res) => {
    const book = await ours(req, res, () => deps.book.execute(sessionOf(res), String(req.params['id'])));
    if (book) json(res, 200, [bookMetadata(book, `${deviceBase(req, deps)}/v1/books/${book.id}/file`)]);
  });

  router.get('/v1/library/:id/state', async (req, res) => {
    const session = sessionOf(res);
    const id = String(req.params['id']);
    const found = await ours(req, res, async () => ({ book: await deps.book.execute(session, id), progress: await deps.getProgress.execute(session.actor, id) }));
    if (found) json(res, 200, [readingState(found.book, found.progress.updatedAt ? { ...found.progress, updatedAt: found.progress.updatedAt } : null)]);
  });

  router.put('/v1/library/:id/state', koboJson('64kb'), async (req, res) => {
    const session = sessionOf(res);
    const { actor, device } = session;
    const id = String(req.params['id']);
    const current = await ours(req, res, async () => {
      await deps.book.execute(session, id);
      return deps.getProgress.execute(actor, id);
    });
    if (!current) return;
    const stored = await deps.updateProgress.execute(actor, { bookId: id, update: progressFromKobo(req.body, current, device) });
    json(res, 200, {
      RequestResult: 'Success',
      UpdateResults: [{
        EntitlementId: id, CurrentBookmarkResult: { Result: 'Success' }, StatisticsResult: { Result: 'Ignored' }, StatusInfoResult: { Result: 'Success' },
        LastModified: koboTime(stored.updatedAt), PriorityTimestamp: koboTime(stored.updatedAt),
      }],
    });
  });

  koboTagRoutes(router, deps, json);

  router.delete('/v1/library/:id', async (req, res) => {
    const { actor, device } = sessionOf(res);
    const done = await ours(req, res, async () => deps.archive.execute({ actor, device }, String(req.params['id'])).then(() => true));
    if (done) res.status(204).end();
  });

  router.get('/v1/books/:id/file', async (req, res) => {
    const file = await deps.file.execute(sessionOf(res), String(req.params['id']));
    res.status(200).setHeader('Content-Type', file.mediaType).setHeader('Content-Length', String(file.size)).setHeader('ETag', file.etag)
      .setHeader('Content-Disposition', `attachment; filename="book.${file.kind === 'kepub' ? 'kepub.epub' : file.kind}"; filename*=UTF-8''${encodeURIComponent(file.fileName)}`);
    // pipeline destroys the source when the client goes away, so an aborted download closes the file at once.
    await pipeline(await file.open(), res).catch((error: unknown) => {
      if ((error as { code?: string }).code !== 'ERR_STREAM_PREMATURE_CLOSE') throw error;
    });
  });

  const thumbnail = async (req: Request, res: Response) => {
    const [width, height, quality] = ['width', 'height', 'quality'].map((p) => (req.params[p] === undefined ? 85 : Number(req.params[p])));
    if (![width, height, quality].every((n) => Number.isInteger(n) && n! >= 1 && n! <= 10_000)) {
      throw invalidInput('The image size is invalid.', [{ field: 'size', message: 'must be whole numbers from 1 to 10000' }]);
    }
    const id = String(req.params['id']);
    try {
      const jpeg = await deps.cover.execute(sessionOf(res), id, { width: width!, height: height!, quality: quality!, greyscale: req.params['grey'] === 'true' });
      res.status(200).type('image/jpeg').setHeader('Cache-Control', 'private, max-age=86400').send(Buffer.from(jpeg));
    } catch (error) {
      if (!deps.store || !hasCodeOf(error, () => bookNotFound(id))) throw error;
      res.redirect(307, `${CDN_IMAGE}/${encodeURIComponent(id)}/${width}/${height}/false/image.jpg`);
    }
  };
  router.get('/v1/books/:id/thumbnail/:width/:height/:grey/image.jpg', thumbnail);
  router.get('/v1/books/:id/thumbnail/:width/:height/:quality/:grey/image.jpg', thumbnail);

  router.use(express.raw({ type: () => true, limit: '1mb' }), async (req, res) => {
    await forwardOr(req, res, () => json(res, 200, emptyAnswer(req)), Buffer.isBuffer(req.body) ? req.body : undefined);
  });
  return outer;
}

/** The answers Calibre-Web gives where it does not forward: what a Kobo accepts for each kind of store call. */
function emptyAnswer(req: Request): unknown {
  if (req.path.startsWith('/v1/user/loyalty/benefits')) return { Benefits: {} };
  if (req.path.startsWith('/v1/analytics/gettests')) return { Result: 'Success', TestKey: String(req.get('x-kobo-userkey') ?? '').slice(0, 200), Tests: {} };
  return {};
}

function randomToken(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString('base64');
}

/** Checks the secret before any body is read; AuthenticateKoboDevice writes the auth event (never the secret). */
function signIn(deps: KoboDeps) {
  return async (req: Request, res: Response, next: NextFunction) => {
    const address = req.ip ?? 'unknown';
    res.locals['koboSession'] = await deps.authenticate.execute({ secret: String(req.params['secret']), clientAddress: address, hardwareId: req.get('x-kobo-deviceid') ?? null });
    next();
  };
}
