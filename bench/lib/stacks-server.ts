import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort, startChildServer, type ChildServer } from './child-server.js';

/** The repository root (bench/lib/../..). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

const dataDirs = new Set<string>();
// After a crash the child is killed (child-server.ts); its data directory goes too.
process.once('exit', () => {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

/** A running Stacks child process with its own fresh data directory. */
export interface StacksServer extends ChildServer {
  readonly dataDir: string;
  /** Stops the process and removes its data directory. */
  stopAndClean(): Promise<number | null>;
}

export interface StacksServerOptions {
  /** Extra environment (wins over the defaults below), e.g. { DATABASE_URL: 'memory:' }. */
  readonly env?: Record<string, string>;
  /** Extra node flags, e.g. ['--cpu-prof', '--cpu-prof-dir=bench/out']. */
  readonly nodeArgs?: readonly string[];
  /** Entry point relative to the repository root; default dist/bootstrap/main.js (e.g. a patched copy for an experiment). */
  readonly entry?: string;
}

/** What `npm start` runs: the server bundled from dist/ by scripts/bundle.mjs (the second half of `npm run build`). */
export const START_ENTRY = 'dist/bundle/main.js';

/**
 * Compiles src/ to dist/ with tsconfig.build.json, then bundles dist/bundle/ from it as `npm run build`
 * does (run once per benchmark). tsc still emits when it reports type errors (exit 2); those
 * diagnostics are returned rather than thrown.
 */
export async function buildStacks(): Promise<string> {
  const run = (args: string[]) => promisify(execFile)(process.execPath, args, { cwd: REPO_ROOT, maxBuffer: 16 * 1024 * 1024 });
  let diagnostics = '';
  try {
    await run([join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json']);
  } catch (error) {
    const failed = error as { code?: number; stdout?: string };
    if (failed.code !== 2) throw error;
    diagnostics = failed.stdout ?? '';
  }
  await run([join(REPO_ROOT, 'scripts/bundle.mjs')]);
  return diagnostics;
}

/**
 * Starts `node dist/bootstrap/main.js` on a free loopback port, with a fresh temp DATA_DIR, a random
 * 32-byte JWT secret, production bcrypt cost 10 and LOG_LEVEL=warn; resolves once /readyz answers 200.
 * The per-address request budgets are raised to their maximum: all load comes from one loopback address,
 * and the limiter should still run on every request without refusing the benchmark. The login
 * failure throttle is left as configured.
 */
export async function startStacks(options: StacksServerOptions = {}): Promise<StacksServer> {
  const port = await freePort();
  const dataDir = await mkdtemp(join(tmpdir(), 'stacks-bench-'));
  dataDirs.add(dataDir);
  const env = {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATA_DIR: dataDir,
    JWT_SECRET: randomBytes(48).toString('base64url'),
    BCRYPT_COST: '10',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_MINUTE: '1000000',
    MAX_CONNECTIONS_PER_ADDRESS: '100000', // every load generator is on loopback
    REGISTER_LIMIT_PER_HOUR: '1000000',
    WORKERS: '1', // one process unless a bench asks for more (options.env)
    ...options.env,
  };
  let server: ChildServer;
  try {
    server = await startChildServer({
      command: process.execPath,
      args: [...(options.nodeArgs ?? []), options.entry ?? 'dist/bootstrap/main.js'],
      cwd: REPO_ROOT,
      env,
      port,
      readyPath: '/readyz',
    });
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    dataDirs.delete(dataDir);
    throw error;
  }
  return {
    ...server,
    dataDir,
    async stopAndClean() {
      const code = await server.stop();
      await rm(dataDir, { recursive: true, force: true });
      dataDirs.delete(dataDir);
      return code;
    },
  };
}
