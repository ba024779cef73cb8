import type { Logger } from 'pino';
import type { CompleteOidcLogin } from '../../application/use-cases/complete-oidc-login.js';
import type { ExchangeOidcCode } from '../../application/use-cases/exchange-oidc-code.js';
import type { StartOidcLink } from '../../application/use-cases/start-oidc-link.js';
import type { StartOidcLogin } from '../../application/use-cases/start-oidc-login.js';
import type { UnlinkOidc } from '../../application/use-cases/unlink-oidc.js';
import { oidcDisabled } from '../../domain/error-catalogue.js';
import type { OidcStateCookie } from './oidc-state-cookie.js';
import { presentToken } from './presenters/user-presenter.js';
import { route, type AnyRoute } from './route.js';
import { TokenResponseSchema } from './schemas/identity.js';
import { OidcCallbackQuery, OidcCodeBody, OidcLinkBody, OidcLinkResponse, OidcLoginQuery, OidcUnlinkBody } from './schemas/oidc.js';

/** The single sign-on flow; null when OIDC_ISSUER is not set. */
export interface OidcFlow {
  readonly start: StartOidcLogin;
  readonly complete: CompleteOidcLogin;
  readonly exchange: ExchangeOidcCode;
  readonly link: StartOidcLink;
  readonly cookie: OidcStateCookie;
}

const tag = 'Single sign-on';

/** The auth event of a single sign-on check (the callback, or the trade of its one-time code): as AuthEvents writes them. */
function ssoEvent(logger: Logger, address: string, error: unknown, userId?: string): void {
  if (error === null) logger.info({ event: 'auth_succeeded', method: 'sso', user_id: userId, address }, 'auth');
  else logger.info({ event: 'auth_failed', method: 'sso', address, code: (error as { code?: unknown } | null)?.code }, 'auth');
}

export function oidcRoutes(deps: { flow: OidcFlow | null; unlink: UnlinkOidc; logger: Logger }): AnyRoute[] {
  const enabled = (): OidcFlow => {
    if (!deps.flow) throw oidcDisabled();
    return deps.flow;
  };
  return [
    route({
      operationId: 'startOidcLogin',
      method: 'get', path: '/api/auth/oidc/login', summary: 'Start single sign-on (redirects to the provider)', tag, auth: false,
      query: OidcLoginQuery,
      responses: { 302: { description: 'To the provider; sets the short-lived sign-in cookie' } },
      errors: [404, 429, 502, 503],
      async handle({ query, req, res }) {
        const flow = enabled();
        const started = await flow.start.execute({ returnTo: query.return_to, clientAddress: req.ip ?? 'unknown' });
        flow.cookie.set(res, started.binding, started.expiresInMs);
        res.redirect(302, started.redirectUrl);
      },
    }),
    route({
      operationId: 'completeOidcLogin',
      method: 'get', path: '/api/auth/oidc/callback', summary: 'Finish single sign-on (the provider redirects here)', tag, auth: false, checksSecret: true,
      query: OidcCallbackQuery,
      responses: {
        200: { description: 'Signed in (no return_to was given)', schema: TokenResponseSchema },
        302: { description: 'To return_to with a one-time `code` for POST /api/auth/oidc/token' },
      },
      errors: [400, 403, 404, 429, 502, 503],
      async handle({ query, req, res }) {
        const flow = enabled();
        const binding = flow.cookie.read(req);
        flow.cookie.clear(res);
        const search = new URL(req.originalUrl, 'http://callback.invalid').search;
        const clientAddress = req.ip ?? 'unknown';
        const result = await flow.complete.execute({ binding, state: query.state, search, clientAddress }).catch((error: unknown) => {
          ssoEvent(deps.logger, clientAddress, error);
          throw error;
        });
        ssoEvent(deps.logger, clientAddress, null, result.user.id);
        if (result.kind === 'redirect') return res.redirect(302, result.location);
        res.json(presentToken(result));
      },
    }),
    route({
      operationId: 'exchangeOidcCode',
      method: 'post', path: '/api/auth/oidc/token', summary: 'Trade the one-time sign-in code for a token', tag, auth: false, checksSecret: true,
      body: OidcCodeBody,
      responses: { 200: { description: 'Signed in', schema: TokenResponseSchema } },
      errors: [403, 404],
      async handle({ body, req, res }) {
        const clientAddress = req.ip ?? 'unknown';
        const result = await enabled().exchange.execute({ code: body.code }).catch((error: unknown) => {
          ssoEvent(deps.logger, clientAddress, error);
          throw error;
        });
        ssoEvent(deps.logger, clientAddress, null, result.user.id);
        res.json(presentToken(result));
      },
    }),
    route({
      operationId: 'startOidcLink',
      method: 'post', path: '/api/auth/oidc/link', summary: 'Start linking single sign-on to the signed-in account', tag, auth: true,
      body: OidcLinkBody,
      responses: { 200: { description: 'Sets the short-lived sign-in cookie; send the browser to authorization_url', schema: OidcLinkResponse } },
      errors: [403, 404, 409, 502, 503],
      async handle({ auth, body, req, res }) {
        const flow = enabled();
        const started = await flow.link.execute(auth.actor, { currentPassword: body.current_password, returnTo: body.return_to, clientAddress: req.ip ?? 'unknown' });
        flow.cookie.set(res, started.binding, started.expiresInMs);
        deps.logger.info({ event: 'oidc_link_started', user_id: auth.actor.id }, 'auth');
        res.json({ authorization_url: started.redirectUrl });
      },
    }),
    route({
      method: 'delete', path: '/api/auth/oidc/link', operationId: 'unlinkOidc', summary: 'Unlink single sign-on from the signed-in account; ends its sessions', tag, auth: true,
      checksSecret: true, body: OidcUnlinkBody,
      responses: { 204: { description: 'Unlinked (or nothing was linked); every session of the account ends, this one included' } },
      errors: [403, 409, 429],
      async handle({ auth, body, req, res }) {
        // Works with single sign-on off too: an account keeps the right to drop an identity it no longer uses.
        await deps.unlink.execute(auth.actor, { currentPassword: body.current_password, clientAddress: req.ip ?? 'unknown' });
        deps.logger.info({ event: 'oidc_unlinked', user_id: auth.actor.id }, 'auth');
        res.status(204).end();
      },
    }),
  ];
}
