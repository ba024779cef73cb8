import { createServer, type RequestListener, type Server } from 'node:http';
import type { Socket } from 'node:net';

/** How long a refused client may keep sending before its socket is destroyed. */
const DRAIN_MS = 1000;

/**
 * The HTTP server Stacks listens with: timeouts against slow clients, a header count cap, and
 * requests Node refuses before routing (oversized or malformed headers) answered 431/408/400 with a
 * half-close, so the client reads the status before the socket goes (Node 24 destroys the socket
 * at once, and a client still sending its headers then sees a reset instead of the 431).
 */
export function createHttpServer(app: RequestListener): Server {
  const server = createServer({ headersTimeout: 15_000, requestTimeout: 30 * 60_000, keepAliveTimeout: 5_000 }, app);
  server.maxHeadersCount = 100;
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => refuse(error, socket));
  return server;
}

const STATUS_LINES: Readonly<Record<string, string>> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
};

function refuse(error: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || error.code === 'ECONNRESET') return void socket.destroy();
  const status = STATUS_LINES[error.code ?? ''] ?? '400 Bad Request';
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  socket.resume();
  setTimeout(() => socket.destroy(), DRAIN_MS).unref();
}
