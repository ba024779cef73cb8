import type { Collection, Db } from 'mongodb';
import type { KnownAddressRepository } from '../../application/ports.js';
import { KNOWN_ADDRESS_MS } from '../../domain/login-throttle.js';
import { isDuplicateId } from './mongo-database.js';

interface KnownAddressDocument {
  _id: string;
  userId: string;
  address: string;
  lastSignInAt: Date;
  /** When the server may forget the address (TTL index `known_addresses_ttl`): 30 days after the last sign-in. */
  expiresAt: Date;
}

const recordId = (userId: string, address: string): string => JSON.stringify([String(userId), String(address)]);

/**
 * KnownAddressRepository on MongoDB: one `$max` upsert per sign-in (a later time only moves forward),
 * forgotten by a TTL index 30 days after; no foreign keys, so a deleted account's are deleted after it.
 */
export class MongoKnownAddressRepository implements KnownAddressRepository {
  private readonly known: Collection<KnownAddressDocument>;
  private readonly users: Collection<{ _id: string }>;

  constructor(db: Db) {
    this.known = db.collection<KnownAddressDocument>('known_addresses');
    this.users = db.collection<{ _id: string }>('users');
  }

  /** Not for an account that is gone (no foreign keys here: checked first; one deleted in between is forgotten by the TTL). */
  async remember(userId: string, address: string, at: Date): Promise<void> {
    if (!(await this.users.findOne({ _id: String(userId) }, { projection: { _id: 1 } }))) return;
    const _id = recordId(userId, address);
    const write = () => this.known.updateOne(
      { _id },
      { $max: { lastSignInAt: at, expiresAt: new Date(at.getTime() + KNOWN_ADDRESS_MS) }, $setOnInsert: { userId: String(userId), address: String(address) } },
      { upsert: true },
    );
    // Two first sign-ins from one address can both try the insert; the loser's retry updates.
    await write().catch((error: unknown) => (isDuplicateId(error, _id) ? write() : Promise.reject(error)));
  }

  async lastSignIn(userId: string, address: string): Promise<Date | null> {
    return (await this.known.findOne({ _id: recordId(userId, address) }))?.lastSignInAt ?? null;
  }

  /** By index known_addresses_user_recent. */
  async recent(userId: string, since: Date, limit: number): Promise<string[]> {
    const found = await this.known.find({ userId: String(userId), lastSignInAt: { $gte: since } }, { projection: { address: 1 } })
      .sort({ lastSignInAt: -1, address: 1 }).limit(limit).toArray();
    return found.map((k) => k.address);
  }

  async deleteForUser(userId: string): Promise<void> {
    await this.known.deleteMany({ userId: String(userId) });
  }

  async purgeBefore(before: Date): Promise<number> {
    return (await this.known.deleteMany({ lastSignInAt: { $lt: before } })).deletedCount;
  }
}
