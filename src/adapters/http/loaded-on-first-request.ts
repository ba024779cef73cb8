import type { RequestHandler } from 'express';

/** A router built at its first request, so its modules load then; a failure to build goes to the error handler. */
export function loadedOnFirstRequest(build: () => Promise<RequestHandler>): RequestHandler {
  let router: Promise<RequestHandler> | null = null;
  return (req, res, next) => {
    (router ??= build()).then((handler) => handler(req, res, next), next);
  };
}
