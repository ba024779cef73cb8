import 'reflect-metadata';
import { pino } from 'pino';
import { stopOnSignals } from '../adapters/http/http-server.js';
import { ConfigError, loadConfig, loadDotEnv } from './config.js';
import { startStacks } from './server.js';

const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  loadDotEnv();
  const config = loadConfig();
  const logger = pino({ level: config.logLevel, base: { service: 'stacks' } });
  const running = await startStacks(config, logger).catch((error: unknown) => {
    logger.fatal({ err: error }, 'start-up failed');
    process.exit(1);
  });
  logger.info({ port: running.port, host: config.host, store: config.store.kind }, 'Stacks is listening');
  stopOnSignals(running.server, SHUTDOWN_GRACE_MS, running.close, logger);
}

main().catch((error: unknown) => {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
