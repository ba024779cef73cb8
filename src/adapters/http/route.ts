import type { OpenAPIRegistry, RouteConfig } from '@asteasolutions/zod-to-openapi';
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import type { ZodError, ZodType } from 'zod';
import type { Authenticated } from '../../application/use-cases/authenticate.js';
import { invalidInput } from '../../domain/error-catalogue.js';
import { unsupportedMediaType, type LocatedFieldError, type RequestPart } from './http-errors.js';
import { newRegistry } from './openapi.js';
import { ProblemSchema } from './schemas/common.js';
import { controlCharacterIssues } from './schemas/text.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface RouteContext<P, Q, B> {
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  /** Set on routes with `auth: true`. */
  readonly auth: Authenticated;
  readonly req: Request;
  readonly res: Response;
}

/** A range of statuses (`4XX`), for answers the route itself never gives, such as the HTTP server's refusals. */
export type StatusRange = '1XX' | '2XX' | '3XX' | '4XX' | '5XX';

export interface ResponseSpec {
  readonly description: string;
  readonly schema?: ZodType;
  /** Defaults to application/json when a schema is given. */
  readonly contentType?: string;
}

export interface RouteSpec<P, Q, B> {
  readonly method: Method;
  /** OpenAPI-style path: `/api/books/{id}`. */
  readonly path: string;
  /**
   * The client method name generators use (`listBooks`): camelCase, unique, and stable across path
   * changes (renaming one is a breaking change; see docs/clients.md, "API versioning").
   */
  readonly operationId: string;
  readonly summary: string;
  readonly tag: string;
  readonly auth: boolean;
  /** The handler checks a password, key or one-time code: the request waits in the secret-check lane (see secret-check-lane.ts). */
  readonly checksSecret?: boolean;
  readonly params?: ZodType<P>;
  readonly query?: ZodType<Q>;
  /** A JSON body, validated; the request must be application/json. */
  readonly body?: ZodType<B>;
  /** Size limit of the JSON body; default 100kb. */
  readonly bodyLimit?: string;
  /** A non-JSON body (uploads): the handler reads the stream; the content type is enforced. */
  readonly rawBody?: { readonly contentType: string; readonly schema: ZodType };
  readonly responses: { readonly [status: number]: ResponseSpec } & { readonly [range in StatusRange]?: ResponseSpec };
  /** Error statuses beyond those implied by auth and validation. */
  readonly errors?: readonly number[];
  handle(ctx: RouteContext<P, Q, B>): Promise<void> | void;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute = RouteSpec<any, any, any>;

export function route<P = Record<string, never>, Q = Record<string, never>, B = undefined>(spec: RouteSpec<P, Q, B>): AnyRoute {
  return spec;
}

/** How an operationId reads as a client method: camelCase letters and digits. */
const OPERATION_ID = /^[a-z][a-zA-Z0-9]*$/;

/** Refuses a route table in which an operationId is not camelCase or names two routes (generators need one method per id). */
export function checkOperationIds(routes: readonly AnyRoute[]): void {
  const owners = new Map<string, string>();
  const problems: string[] = [];
  for (const r of routes) {
    const where = `${r.method.toUpperCase()} ${r.path}`;
    const id = String(r.operationId);
    if (typeof r.operationId !== 'string' || !OPERATION_ID.test(id)) problems.push(`${where}: operationId '${id}' is not camelCase`);
    const owner = owners.get(id);
    if (owner) problems.push(`${where}: operationId '${id}' already names ${owner}`);
    else owners.set(id, where);
  }
  if (problems.length > 0) throw new Error(`Invalid route table: ${problems.join('; ')}`);
}

export type Authenticator = (req: Request) => Promise<Authenticated>;

function fieldErrors(error: ZodError, location: RequestPart): LocatedFieldError[] {
  return error.issues.map((issue) => ({ location, field: issue.path.map(String).join('.') || '(root)', message: issue.message }));
}

/**
 * The part of the request as the schema reads it; a 422 naming each field that fails, or whose text holds
 * a control character (the shared text rule, schemas/text.ts: every string of every body, query and path).
 */
export function parse<T>(schema: ZodType<T> | undefined, value: unknown, location: RequestPart): T {
  if (!schema) return undefined as T;
  const result = schema.safeParse(value);
  if (!result.success) throw invalidInput(`The request ${location} is invalid.`, fieldErrors(result.error, location));
  const controls = controlCharacterIssues(result.data);
  if (controls.length > 0) throw invalidInput(`The request ${location} is invalid.`, controls.map((issue) => ({ location, ...issue })));
  return result.data;
}

const expressPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/** Who made each request that passed `authenticateFirst`. */
const callers = new WeakMap<Request, Authenticated>();

/** Checks the token before any body parser runs, so an anonymous client never gets a body read. */
function authenticateFirst(authenticate: Authenticator): RequestHandler {
  return async (req, _res, next) => {
    callers.set(req, await authenticate(req));
    next();
  };
}

/**
 * Mounts the route on the router; `registryOf` documents the same declaration. A route with `auth`
 * authenticates first, then parses its body (JSON here, multipart in the handler). A route with no
 * JSON body has no parser to run before its handler: it authenticates at the start of the handler,
 * one step of the router instead of two.
 */
export function mountRoute(router: Router, spec: AnyRoute, authenticate: Authenticator): void {
  const authInHandler = spec.auth && !spec.body;
  const handler: RequestHandler = async (req, res) => {
    const auth = authInHandler ? await authenticate(req) : (callers.get(req) as Authenticated);
    const params = parse(spec.params, req.params, 'path');
    const query = parse(spec.query, req.query, 'query');
    if (spec.body && !req.is('application/json')) throw unsupportedMediaType('application/json');
    if (spec.rawBody && !req.is(spec.rawBody.contentType)) throw unsupportedMediaType(spec.rawBody.contentType);
    const body = parse(spec.body, req.body, 'body');
    await spec.handle({ params, query, body, auth, req, res });
  };
  const parsers = spec.body ? [express.json({ limit: spec.bodyLimit ?? '100kb', strict: true, type: 'application/json' })] : [];
  const guards = spec.auth && !authInHandler ? [authenticateFirst(authenticate)] : [];
  router[spec.method](expressPath(spec.path), ...guards, ...parsers, handler);
}

/** An OpenAPI registry holding every route's schemas, as `mountRoute` validates them. */
export function registryOf(routes: readonly AnyRoute[]): OpenAPIRegistry {
  const registry = newRegistry();
  for (const spec of routes) registry.registerPath(openApiOf(spec));
  return registry;
}

function openApiOf(spec: AnyRoute): RouteConfig {
  const errors = new Set<number>(spec.errors ?? []);
  if (spec.tag !== 'Operations') {
    errors.add(429); // the per-address rate limit applies to every route but the health probes
    errors.add(503); // so does the store behind it: `store_unavailable`, or `throttle_busy` for a sign-in it cannot count
  }
  if (spec.auth) errors.add(401);
  if (spec.params || spec.query) errors.add(422);
  if (spec.body) [400, 413, 415, 422].forEach((s) => errors.add(s));
  if (spec.rawBody) [400, 413, 415].forEach((s) => errors.add(s));
  const responses: RouteConfig['responses'] = {};
  for (const [status, r] of Object.entries(spec.responses)) {
    responses[status] = r.schema
      ? { description: r.description, content: { [r.contentType ?? 'application/json']: { schema: r.schema } } }
      : { description: r.description };
  }
  for (const status of [...errors].sort()) {
    responses[String(status)] = { description: 'Error', content: { 'application/problem+json': { schema: ProblemSchema } } };
  }
  const body = spec.body
    ? { content: { 'application/json': { schema: spec.body } }, required: true }
    : spec.rawBody
      ? { content: { [spec.rawBody.contentType]: { schema: spec.rawBody.schema } }, required: true }
      : undefined;
  return {
    method: spec.method,
    path: spec.path,
    operationId: spec.operationId,
    summary: spec.summary,
    tags: [spec.tag],
    // A public operation says so (`[]`), so tools can tell "no credentials" from "forgot to say".
    security: spec.auth ? [{ bearerAuth: [] }] : [],
    request: {
      ...(spec.params ? { params: spec.params as never } : {}),
      ...(spec.query ? { query: spec.query as never } : {}),
      ...(body ? { body } : {}),
    },
    responses,
  };
}
