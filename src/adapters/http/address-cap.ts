import type { RequestHandler } from 'express';
import { addressBucket } from '../../domain/client-address.js';
import { sendProblem } from './error-handler.js';
import { tooManyConnections } from './http-errors.js';

/**
 * Behind a reverse proxy every connection is the proxy's, so MAX_CONNECTIONS_PER_ADDRESS is kept here
 * instead of at accept time (http-server.ts): at most `max` requests in flight per forwarded client
 * address (IPv6: its /56); one more is answered 429 `too_many_connections` with `Retry-After: 1`.
 */
export function requestsInFlightCap(max: number, headers: RequestHandler): RequestHandler {
  const open = new Map<string, number>();
  return (req, res, next) => {
    const bucket = addressBucket(req.ip);
    const count = open.get(bucket) ?? 0;
    if (count >= max) {
      const problem = tooManyConnections();
      res.setHeader('Retry-After', '1');
      return headers(req, res, () => sendProblem(res, problem.status, problem.code, problem.detail));
    }
    open.set(bucket, count + 1);
    res.once('close', () => {
      const left = (open.get(bucket) ?? 1) - 1;
      if (left > 0) open.set(bucket, left);
      else open.delete(bucket);
    });
    next();
  };
}
