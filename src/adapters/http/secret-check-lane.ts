import type { NextFunction, Request, RequestHandler } from 'express';

/** Which requests check a password, key or one-time code (login, registration, KOReader, OPDS Basic, SSO). */
export type ChecksSecret = (req: Request) => boolean;

/**
 * Requests that check a password or key wait their turn here: one is let through per turn of the event
 * loop, oldest first. A burst of them (a login flood) is then answered one by one between other
 * requests, instead of being parsed, validated and refused all in one stretch while everybody else
 * waits. Other requests pass at once. A request whose client left while waiting is dropped unread.
 */
export function secretCheckLane(checksSecret: ChecksSecret): RequestHandler {
  const waiting: Array<{ readonly req: Request; readonly next: NextFunction }> = [];
  let turnScheduled = false;
  const admitOne = () => {
    turnScheduled = false;
    const first = waiting.shift();
    if (waiting.length > 0) scheduleTurn();
    if (first && !first.req.socket.destroyed) first.next();
  };
  const scheduleTurn = () => {
    turnScheduled = true;
    setImmediate(admitOne);
  };
  return (req, _res, next) => {
    if (!checksSecret(req)) return next();
    waiting.push({ req, next });
    if (!turnScheduled) scheduleTurn();
  };
}

/** A route as the lane knows it: its method and OpenAPI-style path (`/api/books/{id}`). */
export interface RouteAddress {
  readonly method: string;
  readonly path: string;
}

/** Matches the path of an OpenAPI-style template (`{id}` is one segment), with or without a trailing slash. */
export function pathPattern(template: string): RegExp {
  return new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}/?$`);
}

/** Requests to one of `routes` (method and path) or anywhere under one of `prefixes`. */
export function checksSecretAt(routes: readonly RouteAddress[], prefixes: readonly string[]): ChecksSecret {
  const patterns = routes.map((r) => ({ method: r.method.toUpperCase(), regex: pathPattern(r.path) }));
  return (req) =>
    patterns.some((p) => p.method === req.method && p.regex.test(req.path)) ||
    prefixes.some((prefix) => req.path === prefix || req.path.startsWith(`${prefix}/`));
}
