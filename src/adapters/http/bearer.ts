import type { Request } from 'express';
import type { Authenticate } from '../../application/use-cases/authenticate.js';
import type { Authenticator } from './route.js';

const BEARER = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i;

/** The token from `Authorization: Bearer <jwt>` only: never from the query string or a cookie. */
export function bearerToken(req: Request): string | undefined {
  const header = req.get('authorization');
  return header ? BEARER.exec(header)?.[1] : undefined;
}

export function bearerAuthenticator(authenticate: Authenticate): Authenticator {
  return (req) => authenticate.execute(bearerToken(req));
}
