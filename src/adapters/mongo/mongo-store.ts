import type { HealthCheck } from '../../application/ports.js';
import { storeUnavailable } from '../../domain/error-catalogue.js';
import { GridFsBlobStore } from './grid-fs-blob-store.js';
import { MongoApiKeyRepository } from './mongo-api-key-repository.js';
import { MongoBookRepository } from './mongo-book-repository.js';
import { MongoDatabase } from './mongo-database.js';
import { migrateLibrary } from './mongo-library-migration.js';
import { MongoLoginThrottleRepository } from './mongo-login-throttle-repository.js';
import { MongoOneTimeCodeRepository } from './mongo-one-time-code-repository.js';
import { MongoProgressRepository } from './mongo-progress-repository.js';
import { MongoShelfRepository } from './mongo-shelf-repository.js';
import { rekeyShelfNames } from './mongo-shelf-name-keys.js';
import { MongoTokenRevocationRepository } from './mongo-token-revocation-repository.js';
import { MongoUserRepository } from './mongo-user-repository.js';

/** Every MongoDB repository and the GridFS blob store over one client. */
export interface MongoStore {
  readonly database: MongoDatabase;
  readonly users: MongoUserRepository;
  readonly revocations: MongoTokenRevocationRepository;
  readonly throttle: MongoLoginThrottleRepository;
  readonly books: MongoBookRepository;
  readonly shelves: MongoShelfRepository;
  readonly oneTimeCodes: MongoOneTimeCodeRepository;
  readonly apiKeys: MongoApiKeyRepository;
  readonly progress: MongoProgressRepository;
  readonly health: HealthCheck;
  readonly blobs: GridFsBlobStore;
  close(): Promise<void>;
}

/** Answers when the server answers `ping`. */
export class MongoHealthCheck implements HealthCheck {
  constructor(private readonly database: MongoDatabase) {}

  async ping(): Promise<void> {
    try {
      await this.database.db.command({ ping: 1 }, { timeoutMS: 2_000 });
    } catch {
      throw storeUnavailable();
    }
  }
}

/** Connects to `url` (`mongodb://` or `mongodb+srv://`, database name in the path), creates the indexes, rekeys shelf names, builds the store. */
export async function createMongoStore(url: string, options: { serverSelectionTimeoutMS?: number } = {}): Promise<MongoStore> {
  const database = await MongoDatabase.connect(url, options);
  try {
    await migrateLibrary(database.db);
    await database.ensureIndexes();
    await rekeyShelfNames(database.db);
  } catch (error) {
    await database.close();
    throw error;
  }
  const { db } = database;
  return {
    database,
    users: new MongoUserRepository(db),
    revocations: new MongoTokenRevocationRepository(db),
    throttle: new MongoLoginThrottleRepository(db),
    books: new MongoBookRepository(db),
    shelves: new MongoShelfRepository(db),
    oneTimeCodes: new MongoOneTimeCodeRepository(db),
    apiKeys: new MongoApiKeyRepository(db),
    progress: new MongoProgressRepository(db),
    health: new MongoHealthCheck(database),
    blobs: new GridFsBlobStore(db),
    close: () => database.close(),
  };
}
