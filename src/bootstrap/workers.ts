import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { jwtSecretFrom } from '../adapters/identity/jwt-secret.js';
import { openStore } from './open-store.js';
import type { Config } from './config.js';

/** The environment variable that tells a worker its slot (0: the one that runs housekeeping). */
export const WORKER_SLOT_ENV = 'STACKS_WORKER_SLOT';

/** What a worker tells the primary once its server accepts connections. */
export interface WorkerListening {
  readonly type: 'stacks:listening';
  readonly port: number;
}

/** The first restart after a crash waits this long; each further crash in a row doubles it, up to MAX_BACKOFF_MS. */
export const FIRST_BACKOFF_MS = 100;
export const MAX_BACKOFF_MS = 30_000;
/** A worker that served this long before dying starts its slot's backoff over. */
const STABLE_AFTER_MS = 60_000;

/** This process's place: the primary of a cluster, one of its workers (slot), or the only process. */
export type ProcessRole = { kind: 'primary' } | { kind: 'worker'; slot: number } | { kind: 'single' };

export function processRole(config: Config, env: NodeJS.ProcessEnv = process.env): ProcessRole {
  if (cluster.isWorker) return { kind: 'worker', slot: Number(env[WORKER_SLOT_ENV] ?? 0) };
  return config.workers > 1 ? { kind: 'primary' } : { kind: 'single' };
}

/** The delay before a slot's restart after `crashes` crashes in a row (1: the first). */
export function restartDelayMs(crashes: number): number {
  return Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, crashes - 1));
}

/** Tells the primary this worker listens (nothing outside a cluster). */
export function reportListening(port: number): void {
  const message: WorkerListening = { type: 'stacks:listening', port };
  process.send?.(message);
}

/**
 * Migrations and the generated JWT secret, once, before any worker starts: the primary opens the store
 * (which brings its schema up to date) and closes it again, and creates DATA_DIR's secret file if needed.
 */
async function prepareOnce(config: Config, logger: Logger): Promise<void> {
  jwtSecretFrom({ configured: config.jwtSecret, dataDir: config.dataDir, ephemeral: false }, (details, message) => logger.warn(details, message));
  const store = await openStore(config);
  await store.close();
}

interface Slot {
  worker: Worker | null;
  startedAt: number;
  crashes: number;
  restart: NodeJS.Timeout | undefined;
}

/**
 * The primary of WORKERS server processes on one port (node:cluster; it serves nothing itself):
 * prepares the store once, forks the workers, logs 'Stacks is listening' once all of them listen,
 * restarts a worker that dies with a backoff per slot, and on SIGTERM or SIGINT asks every worker to
 * drain (their in-flight requests finish), then exits 0 once all have, or 1 when one did not exit
 * cleanly. A worker dying before the service first listened stops it all (exit 1), as a failed
 * start of a single process does.
 */
export async function runPrimary(config: Config, logger: Logger): Promise<void> {
  await prepareOnce(config, logger);
  const slots: Slot[] = Array.from({ length: config.workers }, () => ({ worker: null, startedAt: 0, crashes: 0, restart: undefined }));
  let stopping = false;
  let listening = false;
  let failed = false;
  const ready = new Set<number>();

  const fork = (index: number) => {
    const slot = slots[index] as Slot;
    slot.restart = undefined;
    slot.startedAt = Date.now();
    const worker = cluster.fork({ [WORKER_SLOT_ENV]: String(index) });
    slot.worker = worker;
    worker.on('message', (message: WorkerListening) => {
      if (message?.type !== 'stacks:listening') return;
      logger.info({ worker: index, pid: worker.process.pid }, 'worker listening');
      ready.add(index);
      if (!listening && ready.size === slots.length) {
        listening = true;
        logger.info({ port: message.port, host: config.host, store: config.store.kind, workers: slots.length }, 'Stacks is listening');
      }
    });
  };

  const exitWhenAllGone = () => {
    if (slots.every((s) => s.worker === null)) process.exit(failed ? 1 : 0);
  };

  cluster.on('exit', (worker, code, signal) => {
    const index = slots.findIndex((s) => s.worker === worker);
    if (index < 0) return;
    const slot = slots[index] as Slot;
    slot.worker = null;
    if (stopping) {
      if (code !== 0) failed = true;
      return exitWhenAllGone();
    }
    logger.error({ worker: index, pid: worker.process.pid, code, signal }, 'worker died');
    if (!listening) {
      failed = true;
      return stopAll('start-up failed');
    }
    slot.crashes = Date.now() - slot.startedAt >= STABLE_AFTER_MS ? 1 : slot.crashes + 1;
    const delay = restartDelayMs(slot.crashes);
    logger.info({ worker: index, delayMs: delay }, 'restarting worker');
    slot.restart = setTimeout(() => fork(index), delay);
  });

  const stopAll = (reason: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ reason }, 'shutting down');
    for (const slot of slots) {
      clearTimeout(slot.restart);
      slot.worker?.process.kill('SIGTERM');
    }
    exitWhenAllGone();
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => stopAll(signal));

  for (let i = 0; i < slots.length; i++) fork(i);
}
