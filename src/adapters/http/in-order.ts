import type { NextFunction, Request, RequestHandler, Response } from 'express';

/** Middlewares run as one router layer; `handlers` lists them in order. */
export type InOrder = RequestHandler & { readonly handlers: RequestHandler[] };

/**
 * Middlewares that apply to every request, run one after the other as one layer of the app's router
 * instead of one layer each (each layer is a walk through Express's router: a match, a prefix trim and
 * a dispatch per request). Each handler is run as Express runs a layer: a synchronous throw or a
 * rejected promise goes to `next` as the error, an error handed on skips the handlers after it, and
 * `next()` with no error (or `'route'`) runs the next handler.
 */
export function inOrder(handlers: readonly RequestHandler[]): InOrder {
  const list = [...handlers];
  const run = (index: number, req: Request, res: Response, next: NextFunction): void => {
    const handler = list[index];
    if (!handler) return next();
    // As Express's router reads it: no error (any falsy value) or 'route' goes on; anything else (and 'router') leaves.
    const after: NextFunction = (error?: unknown) => (!error || error === 'route' ? run(index + 1, req, res, next) : next(error));
    try {
      const result = handler(req, res, after) as unknown;
      if (isPromise(result)) result.then(null, (error: unknown) => next(error || new Error('Rejected promise')));
    } catch (error) {
      next(error);
    }
  };
  const middleware = ((req: Request, res: Response, next: NextFunction) => run(0, req, res, next)) as InOrder;
  Object.defineProperty(middleware, 'handlers', { value: list, enumerable: true });
  return middleware;
}

const isPromise = (value: unknown): value is PromiseLike<unknown> =>
  value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function';
