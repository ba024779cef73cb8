import type { RequestHandler } from 'express';
import { clientAddress } from '../../domain/client-address.js';

/**
 * Runs first: `req.ip` becomes the client address every later step (logs, throttles, the in-flight cap,
 * lockouts) uses, in its one spelling (see `clientAddress`). The address `trust proxy` reads from
 * `X-Forwarded-For` is trusted only when it is an IP address; otherwise (`unknown`, markup, control
 * characters, `09.9.9.9`) it is the connection's own address, the proxy's, never the text sent.
 */
export function trustedAddress(): RequestHandler {
  return (req, _res, next) => {
    const address = clientAddress(req.ip) ?? clientAddress(req.socket.remoteAddress) ?? undefined;
    Object.defineProperty(req, 'ip', { value: address, configurable: true, enumerable: true, writable: false });
    next();
  };
}
