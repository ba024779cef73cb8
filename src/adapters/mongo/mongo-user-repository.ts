import type { ClientSession, Collection, Db, UpdateFilter } from 'mongodb';
import { emailTaken, lastAdmin, oidcIdentityTaken, usernameTaken } from '../../domain/error-catalogue.js';
import type { PageRequest } from '../../domain/page.js';
import { offsetOf } from '../../domain/page.js';
import type { RoleName } from '../../domain/permissions.js';
import type { AccessChange, AuthProvider, OidcIdentity, User } from '../../domain/user.js';
import { isActiveAdmin, normalizeEmail, usernameKey, withAccess } from '../../domain/user.js';
import type { Slice, UserRepository } from '../../application/ports.js';
import { conflictOrSame, READ_LATEST_ON_PRIMARY } from './mongo-database.js';
import { inTransaction, QUERY_MAX_TIME_MS } from './mongo-transactions.js';

const limited = { maxTimeMS: QUERY_MAX_TIME_MS };

interface UserDocument {
  _id: string;
  username: string;
  usernameKey: string;
  email: string;
  emailKey: string;
  passwordHash: string | null;
  roles: RoleName[];
  authProvider: AuthProvider;
  oidcIssuer: string | null;
  oidcSubject: string | null;
  /** When the identity was linked; absent on documents written before (their updatedAt stands in). */
  oidcLinkedAt?: Date | null;
  disabled: boolean;
  tokenVersion: number;
  createdAt: Date;
  updatedAt: Date;
}

/** The one document every change that could remove the last active admin writes (see assertAnotherAdmin). */
const LAST_ADMIN_GUARD = 'last-admin-guard';
/** The one document every registration that may be the first writes (see createAdminIfFirst). */
const FIRST_USER_GUARD = 'first-user-guard';

/** UserRepository on MongoDB; usernames, e-mails and OIDC identities are unique through indexes. */
export class MongoUserRepository implements UserRepository {
  private readonly users: Collection<UserDocument>;
  private readonly guards: Collection<{ _id: string; writes: number }>;

  constructor(private readonly db: Db) {
    this.users = db.collection<UserDocument>('users');
    this.guards = db.collection('guards');
  }

  async create(user: User): Promise<void> {
    await this.users.insertOne(toDocument(user)).catch((e: unknown) => Promise.reject(conflictFor(e, user)));
  }

  /**
   * When a user exists already (the common case) a plain insert. Otherwise one transaction looks for any
   * user and, finding none, writes the first-user guard before inserting as admin: two first registrations
   * both write the guard, so one conflicts and is retried, and its retry sees the other's account (no
   * write skew); a retry that sees an account inserts without touching the guard.
   */
  async createAdminIfFirst(user: User): Promise<User> {
    if (await this.users.findOne({}, { projection: { _id: 1 }, ...limited })) {
      await this.create(user);
      return user;
    }
    return inTransaction(this.db, async (session) => {
      const someone = await this.users.findOne({}, { session, projection: { _id: 1 }, ...limited });
      if (!someone) await this.guards.updateOne({ _id: FIRST_USER_GUARD }, { $inc: { writes: 1 } }, { session, upsert: true });
      const stored: User = someone ? user : { ...user, roles: ['admin'] };
      await this.users.insertOne(toDocument(stored), { session }).catch((e: unknown) => Promise.reject(conflictFor(e, user)));
      return stored;
    });
  }

  async setPassword(id: string, passwordHash: string, updatedAt: Date): Promise<User | null> {
    return toUser(await this.users.findOneAndUpdate({ _id: String(id) },
      { $set: { passwordHash, updatedAt: new Date(updatedAt.getTime()) }, $inc: { tokenVersion: 1 } }, { returnDocument: 'after' }));
  }

  /** Sets only the changed fields; the last-admin check runs in the same transaction (isolated on a replica set). */
  async updateAccess(id: string, change: AccessChange, updatedAt: Date): Promise<User | null> {
    return inTransaction(this.db, async (session) => {
      const user = toUser(await this.users.findOne({ _id: String(id) }, { session, ...limited }));
      if (!user) return null;
      const changed = withAccess(user, change, updatedAt);
      if (!isActiveAdmin(changed)) await this.assertAnotherAdmin(user, session);
      const update: UpdateFilter<UserDocument> = { $set: { updatedAt: new Date(updatedAt.getTime()) } };
      if (change.roles) update.$set = { ...update.$set, roles: [...changed.roles] };
      if (change.disabled !== undefined) update.$set = { ...update.$set, disabled: change.disabled };
      if (change.disabled === true) update.$inc = { tokenVersion: 1 };
      return toUser(await this.users.findOneAndUpdate({ _id: user.id }, update, { session, returnDocument: 'after' }));
    });
  }

  async delete(id: string): Promise<boolean> {
    return inTransaction(this.db, async (session) => {
      const user = toUser(await this.users.findOne({ _id: String(id) }, { session, ...limited }));
      if (!user) return false;
      await this.assertAnotherAdmin(user, session);
      return (await this.users.deleteOne({ _id: user.id }, { session })).deletedCount > 0;
    });
  }

  /** On the primary with read concern local: every token check reads the token version a password change or a disable just wrote. */
  async findById(id: string): Promise<User | null> {
    return toUser(await this.users.findOne({ _id: String(id) }, READ_LATEST_ON_PRIMARY));
  }

  /** Revocations live in their own collection: the two point reads (both by _id) go out together, one round trip. */
  async findActiveSession(userId: string, tokenId: string): Promise<User | null> {
    const [user, revoked] = await Promise.all([
      this.users.findOne({ _id: String(userId) }),
      this.db.collection('revocations').countDocuments({ _id: String(tokenId) } as object, { limit: 1 }),
    ]);
    return revoked > 0 ? null : toUser(user);
  }

  async findByUsername(username: string): Promise<User | null> {
    return toUser(await this.users.findOne({ usernameKey: usernameKey(String(username)) }, limited));
  }

  async findByEmail(email: string): Promise<User | null> {
    return toUser(await this.users.findOne({ emailKey: normalizeEmail(String(email)) }, limited));
  }

  async findByOidcIdentity(issuer: string, subject: string): Promise<User | null> {
    return toUser(await this.users.findOne({ oidcIssuer: String(issuer), oidcSubject: String(subject) }, limited));
  }

  async list(page: PageRequest): Promise<Slice<User>> {
    const documents = await this.users.find({}, limited).sort({ createdAt: 1, _id: 1 }).skip(offsetOf(page)).limit(page.pageSize).toArray();
    return { items: documents.map((d) => toUser(d) as User), total: await this.count() };
  }

  async count(): Promise<number> {
    return this.users.countDocuments({}, limited);
  }

  async linkOidcIdentity(id: string, identity: OidcIdentity, updatedAt: Date): Promise<User | null> {
    const linked = await this.users.findOneAndUpdate(
      { _id: String(id), oidcIssuer: null, oidcSubject: null },
      {
        $set: { oidcIssuer: String(identity.issuer), oidcSubject: String(identity.subject), oidcLinkedAt: new Date(updatedAt.getTime()), updatedAt: new Date(updatedAt.getTime()) },
        $inc: { tokenVersion: 1 },
      },
      { returnDocument: 'after' },
    ).catch((e: unknown) => Promise.reject(conflictOrSame(e, { users_oidc_identity: () => oidcIdentityTaken() })));
    return toUser(linked);
  }

  async unlinkOidcIdentity(id: string, updatedAt: Date): Promise<User | null> {
    return toUser(await this.users.findOneAndUpdate(
      { _id: String(id), oidcIssuer: { $type: 'string' } },
      { $set: { oidcIssuer: null, oidcSubject: null, oidcLinkedAt: null, updatedAt: new Date(updatedAt.getTime()) }, $inc: { tokenVersion: 1 } },
      { returnDocument: 'after' },
    ));
  }

  /**
   * Throws `last_admin` when user is the only active admin. Two transactions that each demote a
   * different admin write different users, so snapshot isolation alone would let both pass (write
   * skew); both also write the guard document, so one of them conflicts and is retried.
   */
  private async assertAnotherAdmin(user: User, session: ClientSession): Promise<void> {
    if (!isActiveAdmin(user)) return;
    await this.guards.updateOne({ _id: LAST_ADMIN_GUARD }, { $inc: { writes: 1 } }, { session, upsert: true });
    const other = await this.users.findOne({ _id: { $ne: user.id }, disabled: false, roles: 'admin' }, { session, projection: { _id: 1 }, ...limited });
    if (!other) throw lastAdmin();
  }
}

function toDocument(user: User): UserDocument {
  return {
    _id: user.id,
    username: user.username,
    usernameKey: usernameKey(user.username),
    email: user.email,
    emailKey: normalizeEmail(user.email),
    passwordHash: user.passwordHash,
    roles: [...user.roles],
    authProvider: user.authProvider,
    oidcIssuer: user.oidc?.issuer ?? null,
    oidcSubject: user.oidc?.subject ?? null,
    oidcLinkedAt: user.oidc ? new Date(user.oidc.linkedAt.getTime()) : null,
    disabled: user.disabled,
    tokenVersion: user.tokenVersion,
    createdAt: new Date(user.createdAt.getTime()),
    updatedAt: new Date(user.updatedAt.getTime()),
  };
}

function toUser(d: UserDocument | null): User | null {
  if (!d) return null;
  return {
    id: d._id,
    username: d.username,
    email: d.email,
    passwordHash: d.passwordHash,
    roles: [...d.roles],
    authProvider: d.authProvider,
    oidc: d.oidcIssuer !== null && d.oidcSubject !== null ? { issuer: d.oidcIssuer, subject: d.oidcSubject, linkedAt: d.oidcLinkedAt ?? d.updatedAt } : null,
    disabled: d.disabled,
    tokenVersion: d.tokenVersion,
    createdAt: d.createdAt,
    updatedAt: d.updatedAt,
  };
}

function conflictFor(error: unknown, user: User): unknown {
  return conflictOrSame(error, {
    users_username_key: () => usernameTaken(user.username),
    users_email_key: () => emailTaken(),
    users_oidc_identity: () => oidcIdentityTaken(),
  });
}
