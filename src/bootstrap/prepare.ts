import type { Logger } from 'pino';
import type { Clock } from '../application/ports.js';
import type { BootstrapAdmin } from '../application/use-cases/bootstrap-admin.js';
import { prepareBooks } from './books-module.js';
import type { Config } from './config.js';
import type { StacksContainer } from './container.js';
import { prepareOidc } from './oidc-module.js';
import type { Stores } from './stores.js';
import { TOKENS as T } from './tokens.js';

/** Start-up work before serving: the bootstrap admin and housekeeping. */
export async function prepare({ di }: StacksContainer, config: Config, logger: Logger): Promise<void> {
  if (config.admin) {
    const created = await di.resolve<BootstrapAdmin>(T.BootstrapAdmin).execute(config.admin);
    if (created) logger.info({ username: created.username }, 'bootstrap admin created');
  }
  const purged = await di.resolve<Stores>(T.Stores).revocations.purgeExpired(di.resolve<Clock>(T.Clock).now());
  if (purged > 0) logger.info({ purged }, 'expired token revocations removed');
  await prepareBooks(di, logger);
  await prepareOidc(di, logger);
}
