import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { createApp } from '../adapters/http/app.js';
import { createHttpServer, listen } from '../adapters/http/http-server.js';
import { BootstrapAdmin, RunHousekeeping, type HousekeepingOutcome } from '../index.js';
import type { Config } from './config.js';
import { buildContainer, type StacksContainer } from './container.js';
import { HousekeepingSchedule } from './housekeeping-schedule.js';
import { httpDepsFrom } from './http.js';

export interface RunningStacks {
  readonly server: Server;
  readonly port: number;
  /**
   * Settles once the first housekeeping run, started after listening, has ended ('failed': logged;
   * 'not-here': another worker runs it); it never rejects. Later runs follow on a schedule.
   */
  readonly housekeeping: Promise<HousekeepingOutcome | 'failed' | 'not-here'>;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Whether this process runs housekeeping (default true; of several workers, only the first). */
  readonly housekeeping?: boolean;
}

/**
 * Opens the store, creates the bootstrap admin, listens (ready at once), then runs housekeeping in
 * the background and on a schedule, each step on one instance at a time under the store's leases.
 */
export async function startStacks(config: Config, logger: Logger, options: StartOptions = {}): Promise<RunningStacks> {
  const container = await buildContainer(config, logger);
  const schedule = new HousekeepingSchedule(() => container.di.resolve(RunHousekeeping).execute(), logger);
  const close = async () => {
    schedule.stop();
    await container.dispose();
  };
  try {
    await prepare(container, config, logger);
    const server = createHttpServer(createApp(httpDepsFrom(container)), { trustProxy: config.trustProxy, maxConnectionsPerAddress: config.maxConnectionsPerAddress });
    const port = await listen(server, config.port, config.host);
    if (options.housekeeping === false) return { server, port, housekeeping: Promise.resolve('not-here' as const), close };
    return { server, port, housekeeping: schedule.start(), close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Before listening, only the bootstrap admin: one lookup and at most one insert (another instance may win it). */
export async function prepare({ di }: StacksContainer, config: Config, logger: Logger): Promise<void> {
  const created = config.admin && (await di.resolve(BootstrapAdmin).execute(config.admin));
  if (created) logger.info({ username: created.username }, 'bootstrap admin created');
}
