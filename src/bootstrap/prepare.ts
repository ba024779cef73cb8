import type { Logger } from 'pino';
import type { GridFsBlobStore } from '../adapters/mongo/grid-fs-blob-store.js';
import type { BlobStore } from '../application/ports.js';
import { BootstrapAdmin, ReconcileBookStorage } from '../index.js';
import type { Config } from './config.js';
import type { StacksContainer } from './container.js';
import { portsOf } from './tokens.js';

/** Start-up work before serving: the bootstrap admin, then housekeeping of revocations, book storage and one-time codes. */
export async function prepare({ di }: StacksContainer, config: Config, logger: Logger): Promise<void> {
  const ports = portsOf(di);
  if (config.admin) {
    const created = await di.resolve(BootstrapAdmin).execute(config.admin);
    if (created) logger.info({ username: created.username }, 'bootstrap admin created');
  }
  const revocations = await ports.TokenRevocationRepository.purgeExpired(ports.Clock.now());
  if (revocations > 0) logger.info({ purged: revocations }, 'expired token revocations removed');
  const report = await di.resolve(ReconcileBookStorage).execute();
  logger.info({ ...report, orphanChunksRemoved: await removeOrphanChunks(ports.BlobStore) }, 'book storage reconciled');
  const codes = await ports.OneTimeCodeRepository.purgeExpired(ports.Clock.now());
  if (codes > 0) logger.info({ purged: codes }, 'expired one-time codes removed');
}

/** GridFS (MongoDB) keeps chunks apart from files, so a crash can leave chunks without a file; other blob stores cannot. */
const removeOrphanChunks = async (blobs: BlobStore): Promise<number> =>
  'removeOrphanChunks' in blobs ? (blobs as GridFsBlobStore).removeOrphanChunks() : 0;
