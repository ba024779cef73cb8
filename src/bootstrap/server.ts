import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { createApp } from '../adapters/http/app.js';
import { createHttpServer } from '../adapters/http/http-server.js';
import type { Config } from './config.js';
import { buildContainer } from './container.js';
import { httpDepsFrom } from './http.js';
import { prepare } from './prepare.js';

export interface RunningStacks {
  readonly server: Server;
  readonly port: number;
  close(): Promise<void>;
}

/** Opens the store, runs start-up work, and listens with timeouts against slow clients. */
export async function startStacks(config: Config, logger: Logger): Promise<RunningStacks> {
  const container = await buildContainer(config, logger);
  const close = async () => container.dispose();
  try {
    await prepare(container, config, logger);
    const app = createApp(httpDepsFrom(container));
    const server = createHttpServer(app);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
    return { server, port: (server.address() as AddressInfo).port, close };
  } catch (error) {
    await close();
    throw error;
  }
}
