import type { Socket } from 'node:net';
import type { RequestHandler } from 'express';
import { clientAddress } from '../../domain/client-address.js';

/** The connection's address in its one spelling, remembered per socket (keep-alive: many requests, one address). */
const socketAddresses = new WeakMap<Socket, { readonly raw: string | undefined; readonly address: string | undefined }>();

function socketAddress(socket: Socket): string | undefined {
  const raw = socket.remoteAddress;
  const known = socketAddresses.get(socket);
  if (known && known.raw === raw) return known.address;
  const address = clientAddress(raw) ?? undefined;
  socketAddresses.set(socket, { raw, address });
  return address;
}

/**
 * Runs first: `req.ip` becomes the client address every later step (logs, throttles, the in-flight cap,
 * lockouts) uses, in its one spelling (see `clientAddress`). The address `trust proxy` reads from
 * `X-Forwarded-For` is trusted only when it is an IP address; otherwise (`unknown`, markup, control
 * characters, `09.9.9.9`) it is the connection's own address, the proxy's, never the text sent.
 * With no trusted proxy (`trustProxy` 0) Express's `req.ip` is the connection's address: read from the
 * socket directly.
 */
export function trustedAddress(trustProxy: number): RequestHandler {
  return (req, _res, next) => {
    const address = trustProxy === 0 ? socketAddress(req.socket) : clientAddress(req.ip) ?? socketAddress(req.socket);
    Object.defineProperty(req, 'ip', { value: address, configurable: true, enumerable: true, writable: false });
    next();
  };
}
