import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const MAIN = join(import.meta.dirname, '../../src/bootstrap/main.ts');

/** One JSON log line of the server (its primary or a worker). */
export interface LogLine {
  readonly msg?: string;
  readonly worker?: number;
  readonly pid?: number;
  readonly [field: string]: unknown;
}

/** `src/bootstrap/main.ts` running as its own process (with WORKERS > 1: the primary and its workers). */
export interface SpawnedServer {
  readonly child: ChildProcess;
  readonly url: string;
  /** Resolves with the primary's exit code. */
  readonly exited: Promise<number | null>;
  /** Every JSON line logged so far (each parsed once, as it arrives). */
  lines(): LogLine[];
  /** Waits until `count` lines match (no time bound of its own: the test's timeout decides). */
  waitFor(match: (line: LogLine) => boolean, count?: number): Promise<LogLine[]>;
  /** Calls `listener` with every JSON line logged from now on; the answer unsubscribes it. */
  onLine(listener: (line: LogLine) => void): () => void;
  output(): string;
}

/** Starts the server on a free port with `env` (LOG_LEVEL info, bcrypt cost 4) and waits for 'Stacks is listening'. */
export async function spawnServer(env: Record<string, string>): Promise<SpawnedServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', BCRYPT_COST: '4', PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const parsed: LogLine[] = [];
  const waiters = new Set<() => void>();
  const listeners = new Set<(line: LogLine) => void>();
  // Each stream's unfinished last line waits for its end: lines are parsed once, however long the run.
  const reader = () => {
    let partial = '';
    return (text: string) => {
      out += text;
      const complete = (partial + text).split('\n');
      partial = complete.pop()!;
      for (const l of complete) {
        if (!l.startsWith('{')) continue;
        try {
          const line = JSON.parse(l) as LogLine;
          parsed.push(line);
          for (const listener of listeners) listener(line);
        } catch {
          // not a log line
        }
      }
      for (const check of [...waiters]) check();
    };
  };
  child.stdout!.setEncoding('utf8').on('data', reader());
  child.stderr!.setEncoding('utf8').on('data', reader());
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const lines = () => parsed;
  const waitFor = (match: (line: LogLine) => boolean, count = 1) => new Promise<LogLine[]>((resolve, reject) => {
    const check = () => {
      const found = lines().filter(match);
      if (found.length >= count) {
        waiters.delete(check);
        resolve(found);
      } else if (child.exitCode !== null) {
        waiters.delete(check);
        reject(new Error(`the server exited (${child.exitCode}) before logging what was awaited:\n${out}`));
      }
    };
    waiters.add(check);
    child.once('exit', check);
    check();
  });
  const [listening] = await waitFor((l) => l.msg === 'Stacks is listening');
  const onLine = (listener: (line: LogLine) => void) => {
    listeners.add(listener);
    return () => void listeners.delete(listener);
  };
  return { child, url: `http://127.0.0.1:${String(listening?.port)}`, exited, lines, waitFor, onLine, output: () => out };
}
