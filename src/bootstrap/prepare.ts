import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { GridFsBlobStore } from '../adapters/mongo/grid-fs-blob-store.js';
import type { BlobStore, UserRepository } from '../application/ports.js';
import { ConflictError } from '../domain/errors.js';
import { usernameKey } from '../domain/user.js';
import { BootstrapAdmin, ReconcileBookStorage } from '../index.js';
import type { Config } from './config.js';
import type { StacksContainer } from './container.js';
import { portsOf } from './tokens.js';

/**
 * Before listening, only the bootstrap admin: one lookup and at most one insert. Two instances starting
 * together both try; the one whose insert collides finds the other's account and carries on.
 */
export async function prepare({ di }: StacksContainer, config: Config, logger: Logger): Promise<void> {
  if (!config.admin) return;
  const admin = config.admin;
  try {
    const created = await di.resolve(BootstrapAdmin).execute(admin);
    if (created) logger.info({ username: created.username }, 'bootstrap admin created');
  } catch (error) {
    // The username's or the e-mail's unique index may report the collision: the account being there decides.
    if (!(error instanceof ConflictError) || !(await createdElsewhere(portsOf(di).UserRepository, admin.username))) throw error;
    logger.info({ username: admin.username }, 'bootstrap admin created by another instance');
  }
}

/**
 * Whether the account exists after our insert collided with it. The repository reads at majority, which
 * can lag the winner's write for a moment on the primary, so a miss is asked again a few times.
 */
async function createdElsewhere(users: UserRepository, username: string): Promise<boolean> {
  for (let attempt = 0; attempt < 5; attempt++) {
    if (await users.findByUsername(usernameKey(username))) return true;
    await sleep(100 * (attempt + 1));
  }
  return false;
}

/** Housekeeping after listening: expired revocations and one-time codes, then book storage (temp files, orphan blobs and chunks). */
export async function housekeeping({ di }: StacksContainer, logger: Logger): Promise<void> {
  const ports = portsOf(di);
  const revocations = await ports.TokenRevocationRepository.purgeExpired(ports.Clock.now());
  if (revocations > 0) logger.info({ purged: revocations }, 'expired token revocations removed');
  const codes = await ports.OneTimeCodeRepository.purgeExpired(ports.Clock.now());
  if (codes > 0) logger.info({ purged: codes }, 'expired one-time codes removed');
  const report = await di.resolve(ReconcileBookStorage).execute();
  logger.info({ ...report, orphanChunksRemoved: await removeOrphanChunks(ports.BlobStore) }, 'book storage reconciled');
}

/** GridFS (MongoDB) keeps chunks apart from files, so a crash can leave chunks without a file; other blob stores cannot. */
const removeOrphanChunks = async (blobs: BlobStore): Promise<number> =>
  'removeOrphanChunks' in blobs ? (blobs as GridFsBlobStore).removeOrphanChunks() : 0;
