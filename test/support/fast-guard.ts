import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import workerThreads from 'node:worker_threads';

/**
 * Loaded by vitest.fast.config.ts (`npm run test:fast`): a test of the fast suite that starts a process
 * (the MongoDB stand-in, the CLI, a server) or a worker thread (bcrypt, the metadata pool) fails at
 * once, naming what it tried, so the suite stays in-process and fast. Such a test belongs in `npm test`.
 */
function refused(what: string): () => never {
  // A function, not an arrow: `new Worker(...)` must reach the throw too.
  return function refuse(): never {
    throw new Error(`npm run test:fast starts no ${what}: this test belongs in the whole suite (npm test)`);
  };
}

for (const name of ['spawn', 'spawnSync', 'fork', 'exec', 'execSync', 'execFile', 'execFileSync'] as const) {
  (childProcess as unknown as Record<string, unknown>)[name] = refused(`process (child_process.${name})`);
}
(workerThreads as unknown as Record<string, unknown>).Worker = refused('worker thread (worker_threads.Worker)');
// ESM named imports of built-ins (`import { spawn } from 'node:child_process'`) see the replacements too.
syncBuiltinESMExports();
