import { freePort, startChildServer, type ChildServer } from './child-server.js';
import { REPO_ROOT } from './stacks-server.js';

/** How to run Stacks: the TypeScript sources through tsx (works on a fresh clone) or the compiled dist/. */
export type StacksSource = 'src' | 'dist';

export interface StacksOnOptions {
  readonly dataDir: string;
  readonly jwtSecret: string;
  readonly source: StacksSource;
  readonly env?: Record<string, string>;
  readonly readyTimeoutMs?: number;
  /** Node flags before the entry point, e.g. ['--cpu-prof', '--cpu-prof-dir=bench/out']. */
  readonly nodeFlags?: readonly string[];
}

/** A Stacks process on a data directory that outlives it (restart on the same data). */
export interface StacksProcess extends ChildServer {
  /** SIGKILL, then waits until the process is gone. */
  kill(): Promise<void>;
}

export function stacksArgs(source: StacksSource): string[] {
  return source === 'dist' ? ['dist/bootstrap/main.js'] : ['--import', 'tsx', 'src/bootstrap/main.ts'];
}

/** Starts Stacks on `dataDir` (embedded SQLite store, bcrypt cost 4, per-address limits raised) and waits for /readyz 200. */
export async function startStacksOn(options: StacksOnOptions): Promise<StacksProcess> {
  const port = await freePort();
  const server = await startChildServer({
    command: process.execPath,
    args: [...(options.nodeFlags ?? []), ...stacksArgs(options.source)],
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATA_DIR: options.dataDir,
      JWT_SECRET: options.jwtSecret,
      BCRYPT_COST: '4',
      LOG_LEVEL: 'warn',
      // All load comes from loopback: the per-address budgets would only measure themselves.
      RATE_LIMIT_PER_MINUTE: '1000000',
      MAX_CONNECTIONS_PER_ADDRESS: '100000', // every load generator is on loopback
      REGISTER_LIMIT_PER_HOUR: '1000000',
      WORKERS: '1', // one process unless a bench asks for more (options.env)
      ...options.env,
    },
    port,
    readyPath: '/readyz',
    readyTimeoutMs: options.readyTimeoutMs ?? 60_000,
  });
  return {
    ...server,
    async kill() {
      process.kill(server.pid, 'SIGKILL');
      await server.stop(1_000);
    },
  };
}
