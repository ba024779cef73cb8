import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';

/** A server under test running as a child process. */
export interface ChildServer {
  /** Base URL on loopback, e.g. http://127.0.0.1:41234 (no trailing slash). */
  readonly url: string;
  readonly pid: number;
  /** SIGTERM, then SIGKILL after the grace period; resolves with the exit code (null when killed). */
  stop(graceMs?: number): Promise<number | null>;
  /** The last lines the child wrote to stderr (for failure messages). */
  stderrTail(): string;
}

export interface ChildServerOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly port: number;
  /** Path polled until it answers 200, e.g. /readyz. */
  readonly readyPath: string;
  readonly cwd?: string;
  readonly readyTimeoutMs?: number;
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

const live = new Set<ChildProcess>();
// A benchmark that crashes must not leave its servers running: kill what is left when this process exits.
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** Starts a child process and waits until `readyPath` answers 200. */
export async function startChildServer(options: ChildServerOptions): Promise<ChildServer> {
  const child = spawn(options.command, [...options.args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  let tail = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4000);
  });
  const url = `http://127.0.0.1:${options.port}`;
  const server: ChildServer = {
    url,
    pid: child.pid ?? -1,
    stop: (graceMs = 15_000) => stopChild(child, graceMs),
    stderrTail: () => tail,
  };
  try {
    await waitUntilReady(child, `${url}${options.readyPath}`, options.readyTimeoutMs ?? 30_000);
  } catch (error) {
    await server.stop(2_000);
    throw new Error(`${(error as Error).message}\n--- child stderr ---\n${tail}`);
  }
  return server;
}

async function waitUntilReady(child: ChildProcess, url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`child exited (${child.exitCode ?? child.signalCode}) before ${url} was ready`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1_000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms`);
}

async function stopChild(child: ChildProcess, graceMs: number): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  const [code] = await exited;
  clearTimeout(timer);
  return code;
}
