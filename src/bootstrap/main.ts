import 'reflect-metadata';
import { pino } from 'pino';
import { ConfigError, loadConfig, loadDotEnv } from './config.js';
import { processRole, reportListening, runPrimary } from './workers.js';

const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  loadDotEnv();
  const config = loadConfig();
  const role = processRole(config);
  const base = role.kind === 'worker' ? { service: 'stacks', worker: role.slot } : { service: 'stacks' };
  const logger = pino({ level: config.logLevel, base });
  if (role.kind === 'primary') {
    await runPrimary(config, logger).catch((error: unknown) => {
      logger.fatal({ err: error }, 'start-up failed');
      process.exit(1);
    });
    return;
  }
  // A worker asked to stop while still starting has nothing in flight: it leaves at once, cleanly.
  const stopWhileStarting = () => process.exit(0);
  if (role.kind === 'worker') process.once('SIGTERM', stopWhileStarting);
  // The server's modules load here, so a cluster's primary (which serves nothing) never loads them.
  const [{ startStacks }, { stopOnSignals }] = await Promise.all([import('./server.js'), import('../adapters/http/http-server.js')]);
  // Of several workers, only the first runs housekeeping (and a restarted first worker again).
  const running = await startStacks(config, logger, { housekeeping: role.kind === 'single' || role.slot === 0 }).catch((error: unknown) => {
    logger.fatal({ err: error }, 'start-up failed');
    process.exit(1);
  });
  // The draining handler first, then the start-up one off: removing the only SIGTERM listener closes
  // Node's signal watcher, and a SIGTERM it had caught but not yet delivered would be lost with it
  // (the worker then served on, and the primary waited for it forever).
  stopOnSignals(running.server, SHUTDOWN_GRACE_MS, running.close, logger);
  process.off('SIGTERM', stopWhileStarting);
  if (role.kind === 'worker') reportListening(running.port);
  else logger.info({ port: running.port, host: config.host, store: config.store.kind }, 'Stacks is listening');
}

main().catch((error: unknown) => {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exit(1);
});
