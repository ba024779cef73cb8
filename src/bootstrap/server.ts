import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createApp } from '../adapters/http/app.js';
import { createHttpServer } from '../adapters/http/http-server.js';
import type { Config } from './config.js';
import { buildContainer, type StacksContainer } from './container.js';
import { httpDepsFrom } from './http.js';
import { underLease } from './housekeeping-lease.js';
import { housekeeping, prepare } from './prepare.js';

/** How start-up housekeeping ended: run here, left to the instance holding the lease, or failed (logged). */
export type HousekeepingOutcome = 'done' | 'held-elsewhere' | 'failed';

export interface RunningStacks {
  readonly server: Server;
  readonly port: number;
  /** Settles once the housekeeping started after listening has ended; it never rejects. */
  readonly housekeeping: Promise<HousekeepingOutcome>;
  close(): Promise<void>;
}

/**
 * Opens the store, creates the bootstrap admin, listens (ready at once) with timeouts against slow
 * clients, then runs housekeeping in the background: under the store's lease on MongoDB, in-process
 * otherwise.
 */
export async function startStacks(config: Config, logger: Logger): Promise<RunningStacks> {
  const container = await buildContainer(config, logger);
  let stopping = false;
  const close = async () => {
    stopping = true;
    await container.dispose();
  };
  try {
    await prepare(container, config, logger);
    const deps = httpDepsFrom(container);
    const shared = container.rateCounter ?? undefined;
    const rateLimits = deps.settings.rateLimits && { ...deps.settings.rateLimits, shared };
    const server = createHttpServer(createApp({ ...deps, settings: { ...deps.settings, rateLimits } }));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
    return { server, port: (server.address() as AddressInfo).port, housekeeping: runHousekeeping(container, logger, () => stopping), close };
  } catch (error) {
    await close();
    throw error;
  }
}

async function runHousekeeping(container: StacksContainer, logger: Logger, stopping: () => boolean): Promise<HousekeepingOutcome> {
  try {
    const ran = await underLease(container.housekeepingLease, () => housekeeping(container, logger), logger);
    if (!ran) logger.info('housekeeping left to the instance holding its lease');
    return ran ? 'done' : 'held-elsewhere';
  } catch (err) {
    if (!stopping()) logger.error({ err }, 'housekeeping failed; the next start tries again');
    return 'failed';
  }
}
