import type { Database, Statement } from 'better-sqlite3';
import type { HealthCheck } from '../../application/ports.js';
import { storeUnavailable } from '../../domain/error-catalogue.js';
import type { StoreLimits } from '../../domain/shelf-rules.js';
import { SqliteApiKeyRepository } from './sqlite-api-key-repository.js';
import { SqliteBookDigestRepository } from './sqlite-book-digest-repository.js';
import { SqliteBookRepository } from './sqlite-book-repository.js';
import { SqliteChangeFeed } from './sqlite-change-feed.js';
import { SqliteKoboDeviceRepository } from './sqlite-kobo-device-repository.js';
import { openSqliteCounterConnection, openSqliteDatabase } from './sqlite-database.js';
import { SqliteKnownAddressRepository } from './sqlite-known-address-repository.js';
import { SqliteLoginThrottleRepository } from './sqlite-login-throttle-repository.js';
import { SqliteOneTimeCodeRepository } from './sqlite-one-time-code-repository.js';
import { SqliteRateCounter } from './sqlite-rate-counter.js';
import { SqliteProgressRepository } from './sqlite-progress-repository.js';
import { SqliteShelfRepository } from './sqlite-shelf-repository.js';
import { SqliteSyncDocumentRepository } from './sqlite-sync-document-repository.js';
import { SqliteTokenRevocationRepository } from './sqlite-token-revocation-repository.js';
import { SqliteUserRepository } from './sqlite-user-repository.js';

/** Every SQLite repository over one connection (the embedded default store). */
export interface SqliteStore {
  readonly db: Database;
  readonly users: SqliteUserRepository;
  readonly revocations: SqliteTokenRevocationRepository;
  readonly throttle: SqliteLoginThrottleRepository;
  readonly books: SqliteBookRepository;
  readonly shelves: SqliteShelfRepository;
  readonly oneTimeCodes: SqliteOneTimeCodeRepository;
  readonly apiKeys: SqliteApiKeyRepository;
  readonly progress: SqliteProgressRepository;
  readonly digests: SqliteBookDigestRepository;
  readonly syncDocuments: SqliteSyncDocumentRepository;
  readonly knownAddresses: SqliteKnownAddressRepository;
  readonly koboDevices: SqliteKoboDeviceRepository;
  readonly changes: SqliteChangeFeed;
  readonly health: HealthCheck;
  /** Request-budget counters for several server processes on this file (WORKERS > 1). */
  readonly workerRateCounter: SqliteRateCounter;
  close(): Promise<void>;
}

/** Answers when `select 1` does. */
export class SqliteHealthCheck implements HealthCheck {
  private readonly probe: Statement;

  constructor(private readonly db: Database) {
    this.probe = db.prepare('SELECT 1').pluck();
  }

  async ping(): Promise<void> {
    try {
      if (this.probe.get() !== 1) throw new Error('unexpected answer');
    } catch {
      throw storeUnavailable();
    }
  }
}

/** Opens `<dataDir>/stacks.db` (`:memory:` for a private, throwaway database) and builds the repositories. */
export function createSqliteStore(dataDir: string, limits: StoreLimits = {}): SqliteStore {
  const db = openSqliteDatabase(dataDir);
  const counters = openSqliteCounterConnection(db, dataDir);
  return {
    db,
    users: new SqliteUserRepository(db),
    revocations: new SqliteTokenRevocationRepository(db),
    throttle: new SqliteLoginThrottleRepository(counters),
    books: new SqliteBookRepository(db),
    shelves: new SqliteShelfRepository(db, limits.shelfBooksMax),
    oneTimeCodes: new SqliteOneTimeCodeRepository(db),
    apiKeys: new SqliteApiKeyRepository(db),
    progress: new SqliteProgressRepository(db),
    digests: new SqliteBookDigestRepository(db),
    syncDocuments: new SqliteSyncDocumentRepository(db),
    knownAddresses: new SqliteKnownAddressRepository(counters),
    koboDevices: new SqliteKoboDeviceRepository(db),
    changes: new SqliteChangeFeed(counters), // entries of writes already durable: no fsync of their own
    health: new SqliteHealthCheck(db),
    workerRateCounter: new SqliteRateCounter(counters),
    close: async () => {
      if (counters !== db && counters.open) counters.close();
      if (!db.open) return;
      db.pragma('optimize');
      db.close();
    },
  };
}
