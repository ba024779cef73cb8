import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Logger } from 'pino';

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

/** Listens on host:port (0: any free port); resolves with the port bound once connections are accepted. */
export async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/** Stops accepting and closes idle connections; requests in flight get graceMs to finish, then their sockets are cut. */
export async function stopServer(server: Server, graceMs: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), graceMs);
  await closed;
  clearTimeout(timer);
}

/**
 * The process's graceful stop: on the first SIGTERM or SIGINT, stops the server (in-flight requests get
 * graceMs), runs `release` (the store), then exits 0, or 1 when that failed.
 */
export function stopOnSignals(server: Server, graceMs: number, release: () => Promise<void>, logger: Logger): void {
  let stopping = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    stopServer(server, graceMs).then(release).then(() => process.exit(0), (err: unknown) => {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    });
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => shutdown(signal));
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
