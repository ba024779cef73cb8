import type { HealthCheck } from '../../application/ports.js';
import { storeUnavailable } from '../../domain/error-catalogue.js';
import type { StoreLimits } from '../../domain/shelf-rules.js';
import { InMemoryApiKeyRepository } from './in-memory-api-key-repository.js';
import { InMemoryBookDigestRepository } from './in-memory-book-digest-repository.js';
import { InMemoryBookRepository } from './in-memory-book-repository.js';
import { InMemoryKnownAddressRepository } from './in-memory-known-address-repository.js';
import { InMemoryChangeFeed } from './in-memory-change-feed.js';
import { InMemoryKoboDeviceRepository } from './in-memory-kobo-device-repository.js';
import { InMemoryLoginThrottleRepository } from './in-memory-login-throttle-repository.js';
import { InMemoryOneTimeCodeRepository } from './in-memory-one-time-code-repository.js';
import { InMemoryProgressRepository } from './in-memory-progress-repository.js';
import { InMemoryShelfRepository } from './in-memory-shelf-repository.js';
import { InMemorySyncDocumentRepository } from './in-memory-sync-document-repository.js';
import { InMemoryTokenRevocationRepository } from './in-memory-token-revocation-repository.js';
import { InMemoryUserRepository } from './in-memory-user-repository.js';
import { MemoryDatabase } from './memory-database.js';

/** Every in-memory repository over one shared state (`DATABASE_URL=memory:` and tests). */
export interface MemoryStore {
  /** The state every repository shares (tests read it whole). */
  readonly db: MemoryDatabase;
  readonly users: InMemoryUserRepository;
  readonly revocations: InMemoryTokenRevocationRepository;
  readonly throttle: InMemoryLoginThrottleRepository;
  readonly books: InMemoryBookRepository;
  readonly shelves: InMemoryShelfRepository;
  readonly oneTimeCodes: InMemoryOneTimeCodeRepository;
  readonly apiKeys: InMemoryApiKeyRepository;
  readonly progress: InMemoryProgressRepository;
  readonly digests: InMemoryBookDigestRepository;
  readonly syncDocuments: InMemorySyncDocumentRepository;
  readonly knownAddresses: InMemoryKnownAddressRepository;
  readonly koboDevices: InMemoryKoboDeviceRepository;
  readonly changes: InMemoryChangeFeed;
  readonly health: HealthCheck;
  close(): Promise<void>;
}

/** Answers while the store is open. */
export class InMemoryHealthCheck implements HealthCheck {
  constructor(private readonly db: MemoryDatabase) {}

  async ping(): Promise<void> {
    if (this.db.closed) throw storeUnavailable();
  }
}

export function createMemoryStore(limits: StoreLimits = {}): MemoryStore {
  const db = new MemoryDatabase();
  return {
    db,
    users: new InMemoryUserRepository(db),
    revocations: new InMemoryTokenRevocationRepository(db),
    throttle: new InMemoryLoginThrottleRepository(db),
    books: new InMemoryBookRepository(db),
    shelves: new InMemoryShelfRepository(db, limits.shelfBooksMax),
    oneTimeCodes: new InMemoryOneTimeCodeRepository(db),
    apiKeys: new InMemoryApiKeyRepository(db),
    progress: new InMemoryProgressRepository(db),
    digests: new InMemoryBookDigestRepository(db),
    syncDocuments: new InMemorySyncDocumentRepository(db),
    knownAddresses: new InMemoryKnownAddressRepository(db),
    koboDevices: new InMemoryKoboDeviceRepository(db),
    changes: new InMemoryChangeFeed(db),
    health: new InMemoryHealthCheck(db),
    close: async () => {
      db.closed = true;
    },
  };
}
