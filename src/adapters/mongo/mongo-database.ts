import { MongoClient, MongoServerError } from 'mongodb';
import type { Db, IndexDescription } from 'mongodb';
import { ConflictError } from '../../domain/errors.js';
import { LIBRARY_INDEXES } from './mongo-library-indexes.js';
import { PROGRESS_INDEXES } from './mongo-progress-indexes.js';

/** The collections of one Stacks database and their indexes (created at start, idempotently). */
export const MONGO_INDEXES: Readonly<Record<string, IndexDescription[]>> = {
  users: [
    { key: { usernameKey: 1 }, name: 'users_username_key', unique: true },
    { key: { emailKey: 1 }, name: 'users_email_key', unique: true },
    { key: { oidcIssuer: 1, oidcSubject: 1 }, name: 'users_oidc_identity', unique: true,
      partialFilterExpression: { oidcIssuer: { $type: 'string' } } },
    { key: { createdAt: 1, _id: 1 }, name: 'users_created' },
  ],
  revocations: [{ key: { expiresAt: 1 }, name: 'revocations_ttl', expireAfterSeconds: 0 }],
  throttles: [],
  api_keys: [
    { key: { lookup: 1 }, name: 'api_keys_lookup', unique: true },
    { key: { ownerId: 1, createdAt: -1, _id: 1 }, name: 'api_keys_owner' },
  ],
  one_time_codes: [{ key: { expiresAt: 1 }, name: 'one_time_codes_ttl', expireAfterSeconds: 0 }],
  ...LIBRARY_INDEXES,
  progress: PROGRESS_INDEXES,
};

/**
 * One MongoClient with majority write and read concerns and retryable writes; every document
 * keeps the domain id (a string) as `_id`.
 */
export class MongoDatabase {
  private constructor(
    readonly client: MongoClient,
    readonly db: Db,
  ) {}

  /** Connects and checks the server answers; the database name comes from the URL path. */
  static async connect(url: string, options: { serverSelectionTimeoutMS?: number } = {}): Promise<MongoDatabase> {
    const client = new MongoClient(url, {
      writeConcern: { w: 'majority' },
      readConcern: { level: 'majority' },
      retryWrites: true,
      retryReads: true,
      serverSelectionTimeoutMS: options.serverSelectionTimeoutMS ?? 10_000,
      appName: 'stacks',
    });
    await client.connect();
    const database = new MongoDatabase(client, client.db());
    await database.db.command({ ping: 1 });
    return database;
  }

  /** Creates every collection's indexes; safe to run on every start by every instance. */
  async ensureIndexes(): Promise<void> {
    for (const [name, indexes] of Object.entries(MONGO_INDEXES)) {
      if (indexes.length > 0) await this.db.collection(name).createIndexes(indexes);
    }
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

/** Whether the error is a duplicate key (code 11000) on the named index. */
export function isDuplicateKey(error: unknown, index?: string): error is MongoServerError {
  if (!(error instanceof MongoServerError) || error.code !== 11000) return false;
  return index === undefined || error.message.includes(index);
}

/** Maps a duplicate key to the domain's conflict via the index it names; anything else passes through. */
export function conflictOrSame(error: unknown, byIndex: Readonly<Record<string, () => ConflictError>>): unknown {
  if (!isDuplicateKey(error)) return error;
  for (const [index, conflict] of Object.entries(byIndex)) {
    if (error.message.includes(index)) return conflict();
  }
  return error;
}

/** Escapes every regular-expression metacharacter so user text matches literally; a NUL (which the server refuses in a pattern) as `\x00`. */
export function escapeRegex(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&').replaceAll('\0', '\\x00');
}
