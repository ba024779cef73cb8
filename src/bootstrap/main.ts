import 'reflect-metadata';
import type { Server } from 'node:http';
import { pino } from 'pino';
import { ConfigError, loadConfig, loadDotEnv } from './config.js';
import { startStacks, type RunningStacks } from './server.js';

const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  loadDotEnv();
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = pino({ level: config.logLevel, base: { service: 'stacks' } });
  let running: RunningStacks;
  try {
    running = await startStacks(config, logger);
  } catch (error) {
    logger.fatal({ err: error }, 'start-up failed');
    process.exit(1);
  }
  logger.info({ port: running.port, host: config.host, store: config.store.kind }, 'Stacks is listening');
  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    void stop(running.server, running.close).then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

/** Stops accepting, lets requests in flight finish (bounded), then closes the store. */
async function stop(server: Server, close: () => Promise<void>): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const timer = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
  await closed;
  clearTimeout(timer);
  await close();
}

void main();
