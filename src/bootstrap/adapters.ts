import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { DependencyContainer } from 'tsyringe';
import { FsBlobStore } from '../adapters/files/fs-blob-store.js';
import { FsUploadStaging } from '../adapters/files/fs-upload-staging.js';
import { OidcStateCookie } from '../adapters/http/oidc-state-cookie.js';
import { CryptoSecretGenerator } from '../adapters/identity/crypto-secret-generator.js';
import { jwtSecretFrom } from '../adapters/identity/jwt-secret.js';
import { JwtTokenService } from '../adapters/identity/jwt-token-service.js';
import { RandomIdGenerator } from '../adapters/identity/random-id-generator.js';
import { SystemClock } from '../adapters/identity/system-clock.js';
import { InProcessLeases } from '../adapters/memory/in-process-lease.js';
import type { Clock, RateCounter } from '../application/ports.js';
import { recordingRepositories } from '../application/recording-repositories.js';
import type { Config } from './config.js';
import { deferredCoverResizer, deferredKepubConverter, deferredMetadataReader, deferredPasswordHasher } from './deferred-adapters.js';
import { openStore } from './open-store.js';
import { PORTS, type Ports } from './tokens.js';

/** The adapters' resources, to release on shutdown. */
export interface OpenedAdapters {
  /** The directory holding `books/` and `tmp/`: DATA_DIR, or a fresh temp directory for `memory:`. */
  readonly storageRoot: string;
  /** The key Kobo sync tokens are signed with (derived from the JWT secret). */
  readonly koboTokenKey: Buffer;
  /** Budgets shared by every instance (MongoDB) or worker (SQLite with WORKERS > 1); null: this process counts alone. */
  readonly rateCounter: RateCounter | null;
  /** Closes the store alone, the service still up: a store outage, for tests. */
  closeStore(): Promise<void>;
  dispose(): Promise<void>;
}

/**
 * Opens the configured store and registers each of its repositories and every other adapter under its
 * port token. Modules the first request does not need load later: the password hasher (bcrypt worker
 * threads) at the first password, the metadata reader at the first upload, the KEPUB converter (its
 * worker pool) at the first conversion, sharp at the first cover resized, the OpenID Connect client
 * only when single sign-on is configured, the in-memory and MongoDB stores only when chosen.
 */
export async function registerAdapters(di: DependencyContainer, config: Config, logger: Logger, clock?: Clock): Promise<OpenedAdapters> {
  const store = await openStore(config);
  const hasher = deferredPasswordHasher(config.bcryptCost);
  const ephemeral = config.store.kind === 'memory';
  const secret = jwtSecretFrom({ configured: config.jwtSecret, dataDir: config.dataDir, ephemeral }, (details, message) => logger.warn(details, message));
  const storageRoot = ephemeral ? await mkdtemp(join(tmpdir(), 'stacks-books-')) : config.dataDir;
  const reader = deferredMetadataReader();
  const kepubs = deferredKepubConverter();
  const time = clock ?? new SystemClock();
  const ids = new RandomIdGenerator();

  const register = <K extends keyof Ports>(port: K, value: Ports[K]) => di.registerInstance(PORTS[port], value);
  register('Config', config);
  register('Logger', logger);
  register('Clock', time);
  register('IdGenerator', ids);
  register('UserRepository', store.users);
  register('TokenRevocationRepository', store.revocations);
  register('LoginThrottleRepository', store.throttle);
  // Every write of a book, shelf or reading state is followed by its change-feed entry (Kobo sync reads the feed).
  const recorded = recordingRepositories(store, store.changes, time);
  register('BookRepository', recorded.books);
  register('ShelfRepository', recorded.shelves);
  register('ProgressRepository', recorded.progress);
  register('ChangeFeedRepository', store.changes);
  register('KoboDeviceRepository', store.koboDevices);
  register('KepubConverter', kepubs);
  register('CoverResizer', deferredCoverResizer());
  register('BookDigestRepository', store.digests);
  register('SyncDocumentRepository', store.syncDocuments);
  register('OneTimeCodeRepository', store.oneTimeCodes);
  register('ApiKeyRepository', store.apiKeys);
  register('KnownAddressRepository', store.knownAddresses);
  register('HealthCheck', store.health);
  register('PasswordHasher', hasher);
  register('TokenService', new JwtTokenService({ secret, expiresInSeconds: config.jwtExpiresInSeconds, clock: time, ids }));
  register('UploadStaging', new FsUploadStaging(storageRoot));
  register('BlobStore', 'blobs' in store ? store.blobs : new FsBlobStore(storageRoot)); // GridFS for MongoDB
  register('MetadataReader', reader);
  // Log tags keyed by the JWT secret: every instance tags a mistyped login alike, and none can be read back.
  register('SecretGenerator', new CryptoSecretGenerator(createHmac('sha256', secret).update('stacks log tags').digest()));
  register('HousekeepingLeases', 'housekeepingLeases' in store ? store.housekeepingLeases : new InProcessLeases()); // one instance at a time on MongoDB
  register('StoreHousekeeping', 'housekeeping' in store ? store.housekeeping : []);
  if (config.oidc) {
    const { OpenIdClientProvider } = await import('../adapters/identity/openid-client-provider.js');
    register('OidcProvider', new OpenIdClientProvider(config.oidc));
    di.registerInstance(OidcStateCookie, new OidcStateCookie({ secret, secure: config.publicUrl.startsWith('https:') }));
  }

  return {
    storageRoot,
    koboTokenKey: createHmac('sha256', secret).update('stacks kobo sync token').digest(),
    // Shared by every instance on MongoDB, by every worker process on SQLite.
    rateCounter: 'rateCounter' in store ? store.rateCounter : 'workerRateCounter' in store && config.workers > 1 ? store.workerRateCounter : null,
    closeStore: () => store.close(),
    dispose: async () => {
      await reader.close();
      await kepubs.close();
      if (ephemeral) await rm(storageRoot, { recursive: true, force: true });
      await hasher.close();
      await store.close();
    },
  };
}
