import type { Logger } from 'pino';
import type { CompleteOidcLogin } from '../../application/use-cases/complete-oidc-login.js';
import type { ExchangeOidcCode } from '../../application/use-cases/exchange-oidc-code.js';
import type { StartOidcLink } from '../../application/use-cases/start-oidc-link.js';
import type { StartOidcLogin } from '../../application/use-cases/start-oidc-login.js';
import { oidcDisabled } from '../../domain/error-catalogue.js';
import type { OidcStateCookie } from './oidc-state-cookie.js';
import { presentToken } from './presenters/user-presenter.js';
import { route, type AnyRoute } from './route.js';
import { TokenResponseSchema } from './schemas/identity.js';
import { OidcCallbackQuery, OidcCodeBody, OidcLinkBody, OidcLinkResponse, OidcLoginQuery } from './schemas/oidc.js';

/** The single sign-on flow; null when OIDC_ISSUER is not set. */
export interface OidcFlow {
  readonly start: StartOidcLogin;
  readonly complete: CompleteOidcLogin;
  readonly exchange: ExchangeOidcCode;
  readonly link: StartOidcLink;
  readonly cookie: OidcStateCookie;
}

const tag = 'Single sign-on';

export function oidcRoutes(deps: { flow: OidcFlow | null; logger: Logger }): AnyRoute[] {
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
          deps.logger.info({ event: 'oidc_login_failed', address: clientAddress, code: (error as { code?: string }).code }, 'auth');
          throw error;
        });
        if (result.kind === 'redirect') return res.redirect(302, result.location);
        deps.logger.info({ event: 'oidc_login_succeeded', user_id: result.user.id }, 'auth');
        res.json(presentToken(result));
      },
    }),
    route({
      operationId: 'exchangeOidcCode',
      method: 'post', path: '/api/auth/oidc/token', summary: 'Trade the one-time sign-in code for a token', tag, auth: false, checksSecret: true,
      body: OidcCodeBody,
      responses: { 200: { description: 'Signed in', schema: TokenResponseSchema } },
      errors: [403, 404],
      async handle({ body, res }) {
        const result = await enabled().exchange.execute({ code: body.code });
        deps.logger.info({ event: 'oidc_login_succeeded', user_id: result.user.id }, 'auth');
        res.json(presentToken(result));
      },
    }),
    route({
      operationId: 'startOidcLink',
      method: 'post', path: '/api/auth/oidc/link', summary: 'Start linking single sign-on to the signed-in account', tag, auth: true,
      body: OidcLinkBody,
      responses: { 200: { description: 'Sets the short-lived sign-in cookie; send the browser to authorization_url', schema: OidcLinkResponse } },
      errors: [404, 409, 502, 503],
      async handle({ auth, body, req, res }) {
        const flow = enabled();
        const started = await flow.link.execute(auth.actor, { returnTo: body.return_to, clientAddress: req.ip ?? 'unknown' });
        flow.cookie.set(res, started.binding, started.expiresInMs);
        deps.logger.info({ event: 'oidc_link_started', user_id: auth.actor.id }, 'auth');
        res.json({ authorization_url: started.redirectUrl });
      },
    }),
  ];
}
