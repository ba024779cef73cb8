import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Logger } from 'pino';
import { addressBucket } from '../../domain/client-address.js';
import { requestTimedOut } from './http-errors.js';

/** How often, per idle period, requests with a body still arriving are looked at. */
const SWEEPS_PER_IDLE_PERIOD = 10;

/** How long a refused client may keep sending before its socket is destroyed. */
const DRAIN_MS = 1000;

/** How the server treats slow and greedy clients (API.md, "Slow requests are cut"). */
export interface HttpServerLimits {
  /** All the headers of a request must arrive within this. */
  readonly headersTimeoutMs: number;
  /** A request body that sends no byte for this long is answered 408 `request_timeout` and closed. */
  readonly bodyIdleTimeoutMs: number;
  /** The longest a whole request may take, however steadily it sends (a backstop). */
  readonly requestTimeoutMs: number;
  /** Open connections one client address (IPv6: its /56) may hold; beyond it new ones are closed at once. */
  readonly maxConnectionsPerAddress: number;
  /**
   * Trusted proxy hops in front (TRUST_PROXY). Behind a proxy every connection comes from the proxy, so the
   * cap is then kept per forwarded address by the application (see app.ts), not here.
   */
  readonly trustProxy: number;
}

export const DEFAULT_HTTP_LIMITS: HttpServerLimits = {
  headersTimeoutMs: 10_000,
  bodyIdleTimeoutMs: 30_000,
  requestTimeoutMs: 30 * 60_000,
  maxConnectionsPerAddress: 64,
  trustProxy: 0,
};

/**
 * The HTTP server Stacks listens with: headers within `headersTimeoutMs`, bodies that stall for
 * `bodyIdleTimeoutMs` cut with a 408, at most `maxConnectionsPerAddress` connections per peer address,
 * a header count cap, and requests Node refuses before routing (oversized or malformed headers)
 * answered 431/408/400 with a half-close, so the client reads the status before the socket goes (Node 24
 * destroys the socket at once, and a client still sending its headers then sees a reset instead of the 431).
 */
export function createHttpServer(app: RequestListener, limits: Partial<HttpServerLimits> = {}): Server {
  const l = { ...DEFAULT_HTTP_LIMITS, ...limits };
  const idle = new BodyIdleWatch(l.bodyIdleTimeoutMs);
  const server = createServer({
    headersTimeout: l.headersTimeoutMs,
    requestTimeout: Math.max(l.requestTimeoutMs, l.headersTimeoutMs),
    keepAliveTimeout: 5_000,
    // Node checks the two timeouts above on this period (default 30 s): often enough that a 10 s limit means about 10 s.
    connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(l.headersTimeoutMs / 4))),
  }, (req, res) => {
    idle.watch(req, res);
    app(req, res);
  });
  server.maxHeadersCount = 100;
  if (l.trustProxy === 0) capConnections(server, l.maxConnectionsPerAddress);
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => refuse(error, socket));
  server.on('close', () => idle.stop());
  return server;
}

/** Closes, as soon as it is accepted, a connection from a peer address that already holds `max` open ones. */
function capConnections(server: Server, max: number): void {
  const open = new Map<string, number>();
  // Before Node's own listener, so a refused socket is never parsed.
  server.prependListener('connection', (socket: Socket) => {
    const bucket = addressBucket(socket.remoteAddress);
    const count = open.get(bucket) ?? 0;
    if (count >= max) return void socket.destroy();
    open.set(bucket, count + 1);
    socket.once('close', () => {
      const left = (open.get(bucket) ?? 1) - 1;
      if (left > 0) open.set(bucket, left);
      else open.delete(bucket);
    });
  });
}

/**
 * Requests whose body is still arriving, swept ten times per idle period: one whose socket has read
 * no byte for the idle period while nothing of its body waits unread (the client stalls, not the server)
 * is answered 408 `request_timeout` and its connection closed. A silence is seen from the sweep after its
 * last byte, so the cut comes after 1.0–1.2 idle periods (30–36 s by default; with four sweeps, up to 45 s).
 */
class BodyIdleWatch {
  private readonly watched = new Map<IncomingMessage, { res: ServerResponse; bytes: number; since: number }>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly idleMs: number) {}

  watch(req: IncomingMessage, res: ServerResponse): void {
    if (req.complete || !hasBody(req)) return;
    this.watched.set(req, { res, bytes: req.socket.bytesRead, since: performance.now() });
    const forget = () => this.watched.delete(req);
    req.once('end', forget);
    res.once('close', forget);
    this.timer ??= setInterval(() => this.sweep(), Math.max(25, Math.floor(this.idleMs / SWEEPS_PER_IDLE_PERIOD))).unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private sweep(): void {
    const now = performance.now();
    for (const [req, entry] of this.watched) {
      const bytes = req.socket.bytesRead;
      if (req.complete || bytes !== entry.bytes || req.readableLength > 0 || req.socket.destroyed) {
        if (req.complete || req.socket.destroyed) this.watched.delete(req);
        else Object.assign(entry, { bytes, since: now });
        continue;
      }
      if (now - entry.since < this.idleMs) continue;
      this.watched.delete(req);
      cut(req, entry.res);
    }
    if (this.watched.size === 0) this.stop();
  }
}

const hasBody = (req: IncomingMessage): boolean =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/**
 * Answers 408 `request_timeout` (unless an answer has begun), then destroys the request (its readers see it
 * aborted) and closes the connection. The body must be ended here: once its response has finished, Node emits no
 * `close`, `aborted` or `error` on the request when the socket goes, so whatever still reads the body (an
 * upload being staged, its file open) would wait for ever.
 */
function cut(req: IncomingMessage, res: ServerResponse): void {
  const socket = res.socket;
  if (!res.headersSent) {
    const problem = requestTimedOut();
    const body = JSON.stringify({ type: 'about:blank', title: 'Request Timeout', status: problem.status, code: problem.code, detail: problem.detail });
    res.writeHead(problem.status, { 'Content-Type': 'application/problem+json', 'Content-Length': Buffer.byteLength(body), Connection: 'close' });
    res.end(body);
  }
  const end = () => {
    req.destroy();
    socket?.destroy();
  };
  if (socket) setTimeout(end, DRAIN_MS).unref();
  else {
    end();
    res.destroy();
  }
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
