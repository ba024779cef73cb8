import express, { type Request, type Response, type Router } from 'express';
import type { AuthenticateSyncUser } from '../../application/use-cases/authenticate-sync-user.js';
import type { PullSyncProgress } from '../../application/use-cases/pull-sync-progress.js';
import type { PushSyncProgress } from '../../application/use-cases/push-sync-progress.js';
import type { Actor } from '../../domain/actor.js';
import { kosyncRegistrationClosed } from '../../domain/error-catalogue.js';
import { SYNC_LIMITS } from '../../domain/kosync.js';
import { isCleanName, NAME_CONTROL_MESSAGE } from '../../domain/text.js';
import type { Logger } from 'pino';
import { z } from 'zod';
import { parse } from './kosync-parse.js';
import { kosyncErrors, kosyncJsonBody, presentSyncState, sendKosync, sendKosyncRefusal, type KosyncTransport } from './kosync-responses.js';

export interface KosyncDeps {
  readonly authenticate: AuthenticateSyncUser;
  /** Where a fault of the service under /kosync is logged. */
  readonly logger: Logger;
  readonly push: PushSyncProgress;
  readonly pull: PullSyncProgress;
  readonly transport: KosyncTransport;
}

/** A name field (the device's name and id): the text rule, and no tab or line break either. */
const nameText = (max: number) => z.string().max(max).refine(isCleanName, NAME_CONTROL_MESSAGE);

/** KOReader's push (`progress` is a string, `percentage` a number); its optional `metadata` and `identifiers` are accepted and ignored, any other field refused. */
const PushBody = z.strictObject({
  document: z.string().min(1).max(SYNC_LIMITS.document),
  progress: z.string().max(SYNC_LIMITS.progress),
  percentage: z.number().min(0).max(1),
  device: nameText(SYNC_LIMITS.device),
  device_id: nameText(SYNC_LIMITS.deviceId),
  metadata: z.unknown().optional(),
  identifiers: z.unknown().optional(),
});
const DocumentParams = z.object({ document: z.string().min(1).max(SYNC_LIMITS.document) });

const header = (req: Request, name: string): string => {
  const value = req.headers[name];
  return typeof value === 'string' ? value : '';
};
const actorOf = (res: Response): Actor => res.locals['kosyncActor'] as Actor;

/** The paths KOReader calls and their one method each (GET also answers HEAD). */
const KOSYNC_ROUTES: readonly { readonly method: string; readonly path: RegExp }[] = [
  { method: 'POST', path: /^\/users\/create\/?$/ },
  { method: 'GET', path: /^\/users\/auth\/?$/ },
  { method: 'PUT', path: /^\/syncs\/progress\/?$/ },
  { method: 'GET', path: /^\/syncs\/progress\/[^/]+\/?$/ },
];

/**
 * KOReader's progress-sync server, mounted at /kosync (documented in docs/koreader.md, not in
 * /openapi.json). Every route but registration checks `x-auth-user` and `x-auth-key` before any body is read.
 */
export function kosyncRouter(deps: KosyncDeps): Router {
  const router = express.Router({ caseSensitive: true });
  // AuthenticateSyncUser writes the auth event of every sign-in (never the key, nor the name as typed).
  const signIn = async (req: Request, res: Response, next: () => void) => {
    const credentials = { username: header(req, 'x-auth-user'), keyMd5: header(req, 'x-auth-key') };
    res.locals['kosyncActor'] = await deps.authenticate.execute(credentials, req.ip ?? 'unknown');
    next();
  };

  router.post('/users/create', () => {
    throw kosyncRegistrationClosed();
  });
  router.get('/users/auth', signIn, (_req, res) => sendKosync(res, 200, { authorized: 'OK' }));
  router.put('/syncs/progress', signIn, kosyncJsonBody(deps.transport), async (req, res) => {
    const { document, progress, percentage, device, device_id: deviceId } = parse(PushBody, req.body, 'body');
    sendKosync(res, 200, await deps.push.execute(actorOf(res), { document, progress, percentage, device, deviceId }));
  });
  router.get('/syncs/progress/:document', signIn, async (req, res) => {
    const { document } = parse(DocumentParams, req.params, 'path');
    const state = await deps.pull.execute(actorOf(res), document);
    sendKosync(res, 200, state ? presentSyncState(state) : {});
  });
  // Anything else under /kosync: a known path asked with another method is 405 with Allow, the rest 404, both as KOReader reads them.
  router.use((req, res) => {
    const allowed = KOSYNC_ROUTES.filter((r) => r.path.test(req.path)).map((r) => r.method);
    if (allowed.length === 0) return sendKosyncRefusal(res, 404, deps.transport.routeNotFound(req.method, req.path).code);
    res.setHeader('Allow', [...allowed, ...(allowed.includes('GET') ? ['HEAD'] : [])].join(', '));
    const refusal = deps.transport.methodNotAllowed(req.method);
    sendKosyncRefusal(res, refusal.status, refusal.code);
  });
  router.use(kosyncErrors(deps.logger, deps.transport));
  return router;
}
