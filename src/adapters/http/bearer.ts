import type { Request } from 'express';
import type { Authenticate } from '../../application/use-cases/authenticate.js';
import type { Authenticator } from './route.js';

const BEARER = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i;

/** How many Authorization headers the request carried (Node keeps only the first one in req.headers). */
const authorizationCount = (req: Request): number =>
  req.rawHeaders.filter((value, i) => i % 2 === 0 && value.toLowerCase() === 'authorization').length;

/** The token from `Authorization: Bearer <jwt or stk_ key>` only: never from the query string or a cookie, never from a repeated header. */
export function bearerToken(req: Request): string | undefined {
  if (authorizationCount(req) > 1) return undefined;
  const header = req.get('authorization');
  return header ? BEARER.exec(header)?.[1] : undefined;
}

export function bearerAuthenticator(authenticate: Authenticate): Authenticator {
  return (req) => authenticate.execute(bearerToken(req), req.ip ?? 'unknown');
}
