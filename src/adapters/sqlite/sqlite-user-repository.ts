import type { Database, Statement, Transaction } from 'better-sqlite3';
import { emailTaken, lastAdmin, oidcIdentityTaken, usernameTaken } from '../../domain/error-catalogue.js';
import type { PageRequest } from '../../domain/page.js';
import { offsetOf } from '../../domain/page.js';
import type { RoleName } from '../../domain/permissions.js';
import type { AccessChange, AuthProvider, OidcIdentity, User } from '../../domain/user.js';
import { isActiveAdmin, normalizeEmail, usernameKey, withAccess } from '../../domain/user.js';
import type { Slice, UserRepository } from '../../application/ports.js';
import { fromMillis, isUniqueViolation, toMillis } from './sqlite-database.js';

interface UserRow {
  id: string;
  username: string;
  email: string;
  password_hash: string | null;
  roles: string;
  auth_provider: AuthProvider;
  oidc_issuer: string | null;
  oidc_subject: string | null;
  oidc_linked_at: number | null;
  disabled: number;
  token_version: number;
  created_at: number;
  updated_at: number;
}

const COLUMNS = `id, username, email, password_hash, roles, auth_provider, oidc_issuer, oidc_subject, oidc_linked_at,
  disabled, token_version, created_at, updated_at`;
const VALUES = `@id, @username, @username_key, @email, @email_key, @password_hash, @roles, @auth_provider,
  @oidc_issuer, @oidc_subject, @oidc_linked_at, @disabled, @token_version, @created_at, @updated_at`;

/** UserRepository on SQLite; usernames and e-mails are unique through lower-cased key columns. */
export class SqliteUserRepository implements UserRepository {
  private readonly insert: Statement;
  private readonly insertAdminIfFirstTx: Transaction<(user: User) => User>;
  private readonly newPassword: Statement;
  private readonly accessTx: Transaction<(id: string, change: AccessChange, updatedAt: Date) => User | null>;
  private readonly deleteTx: Transaction<(id: string) => boolean>;
  private readonly byId: Statement;
  private readonly activeSession: Statement;
  private readonly byUsername: Statement;
  private readonly byEmail: Statement;
  private readonly byOidc: Statement;
  private readonly page: Statement;
  private readonly total: Statement;
  private readonly linkIfUnlinked: Statement;
  private readonly unlinkIfLinked: Statement;

  constructor(db: Database) {
    this.insert = db.prepare(`INSERT INTO users (id, username, username_key, email, email_key, password_hash, roles,
      auth_provider, oidc_issuer, oidc_subject, oidc_linked_at, disabled, token_version, created_at, updated_at) VALUES (${VALUES})`);
    this.byId = db.prepare(`SELECT ${COLUMNS} FROM users WHERE id = ?`);
    const anyUser = db.prepare('SELECT 1 FROM users LIMIT 1').pluck();
    this.insertAdminIfFirstTx = db.transaction((user: User) => {
      const stored: User = anyUser.get() === undefined ? { ...user, roles: ['admin'] } : user;
      this.write(this.insert, stored);
      return toUser(this.byId.get(user.id) as UserRow | undefined) as User;
    });
    this.newPassword = db.prepare(`UPDATE users SET password_hash = ?, token_version = token_version + 1, updated_at = ?
      WHERE id = ? RETURNING ${COLUMNS}`);
    const setAccess = db.prepare('UPDATE users SET roles = @roles, disabled = @disabled, token_version = @token_version, updated_at = @updated_at WHERE id = @id');
    const remove = db.prepare('DELETE FROM users WHERE id = ?');
    const otherActiveAdmin = db.prepare(`SELECT 1 FROM users WHERE id != ? AND disabled = 0
      AND EXISTS (SELECT 1 FROM json_each(users.roles) WHERE value = 'admin') LIMIT 1`).pluck();
    const assertAnotherAdmin = (user: User): void => {
      if (isActiveAdmin(user) && otherActiveAdmin.get(user.id) === undefined) throw lastAdmin();
    };
    this.accessTx = db.transaction((id: string, change: AccessChange, updatedAt: Date) => {
      const user = toUser(this.byId.get(id) as UserRow | undefined);
      if (!user) return null;
      const changed = withAccess(user, change, updatedAt);
      if (!isActiveAdmin(changed)) assertAnotherAdmin(user);
      setAccess.run(toParams(changed));
      return changed;
    });
    this.deleteTx = db.transaction((id: string) => {
      const user = toUser(this.byId.get(id) as UserRow | undefined);
      if (!user) return false;
      assertAnotherAdmin(user);
      return remove.run(id).changes > 0;
    });
    this.activeSession = db.prepare(`SELECT ${COLUMNS} FROM users WHERE id = ?
      AND NOT EXISTS (SELECT 1 FROM token_revocations WHERE jti = ?)`);
    this.byUsername = db.prepare(`SELECT ${COLUMNS} FROM users WHERE username_key = ?`);
    this.byEmail = db.prepare(`SELECT ${COLUMNS} FROM users WHERE email_key = ?`);
    this.byOidc = db.prepare(`SELECT ${COLUMNS} FROM users WHERE oidc_issuer = ? AND oidc_subject = ?`);
    this.page = db.prepare(`SELECT ${COLUMNS} FROM users ORDER BY created_at, id LIMIT ? OFFSET ?`);
    this.total = db.prepare('SELECT count(*) FROM users').pluck();
    this.linkIfUnlinked = db.prepare(`UPDATE users SET oidc_issuer = @issuer, oidc_subject = @subject, oidc_linked_at = @updated_at,
      token_version = token_version + 1, updated_at = @updated_at
      WHERE id = @id AND oidc_issuer IS NULL AND oidc_subject IS NULL RETURNING ${COLUMNS}`);
    this.unlinkIfLinked = db.prepare(`UPDATE users SET oidc_issuer = NULL, oidc_subject = NULL, oidc_linked_at = NULL,
      token_version = token_version + 1, updated_at = ? WHERE id = ? AND oidc_issuer IS NOT NULL RETURNING ${COLUMNS}`);
  }

  async create(user: User): Promise<void> {
    this.write(this.insert, user);
  }

  /** One immediate transaction: the emptiness check and the insert see the same state, across processes too. */
  async createAdminIfFirst(user: User): Promise<User> {
    return this.insertAdminIfFirstTx.immediate(user);
  }

  async setPassword(id: string, passwordHash: string, updatedAt: Date): Promise<User | null> {
    return toUser(this.newPassword.get(passwordHash, toMillis(updatedAt), id) as UserRow | undefined);
  }

  /** One immediate transaction: the last-admin check and the write see the same state, across processes too. */
  async updateAccess(id: string, change: AccessChange, updatedAt: Date): Promise<User | null> {
    return this.accessTx.immediate(id, change, updatedAt);
  }

  async delete(id: string): Promise<boolean> {
    return this.deleteTx.immediate(id);
  }

  async findById(id: string): Promise<User | null> {
    return toUser(this.byId.get(id) as UserRow | undefined);
  }

  /** One statement: the user by primary key, unless the token id is in token_revocations (its primary key). */
  async findActiveSession(userId: string, tokenId: string): Promise<User | null> {
    return toUser(this.activeSession.get(userId, tokenId) as UserRow | undefined);
  }

  async findByUsername(username: string): Promise<User | null> {
    return toUser(this.byUsername.get(usernameKey(username)) as UserRow | undefined);
  }

  async findByEmail(email: string): Promise<User | null> {
    return toUser(this.byEmail.get(normalizeEmail(email)) as UserRow | undefined);
  }

  async findByOidcIdentity(issuer: string, subject: string): Promise<User | null> {
    return toUser(this.byOidc.get(issuer, subject) as UserRow | undefined);
  }

  async list(page: PageRequest): Promise<Slice<User>> {
    const rows = this.page.all(page.pageSize, offsetOf(page)) as UserRow[];
    return { items: rows.map((row) => toUser(row) as User), total: await this.count() };
  }

  async count(): Promise<number> {
    return this.total.get() as number;
  }

  private write(statement: Statement, user: User): void {
    try {
      statement.run(toParams(user));
    } catch (error) {
      throw conflictFor(error, user);
    }
  }

  async linkOidcIdentity(id: string, identity: OidcIdentity, updatedAt: Date): Promise<User | null> {
    const params = { id, issuer: identity.issuer, subject: identity.subject, updated_at: toMillis(updatedAt) };
    try {
      return toUser(this.linkIfUnlinked.get(params) as UserRow | undefined);
    } catch (error) {
      throw isUniqueViolation(error) && error.message.includes('users.oidc_issuer') ? oidcIdentityTaken() : error;
    }
  }

  async unlinkOidcIdentity(id: string, updatedAt: Date): Promise<User | null> {
    return toUser(this.unlinkIfLinked.get(toMillis(updatedAt), id) as UserRow | undefined);
  }
}

function toParams(user: User): Record<string, unknown> {
  return {
    id: user.id,
    username: user.username,
    username_key: usernameKey(user.username),
    email: user.email,
    email_key: normalizeEmail(user.email),
    password_hash: user.passwordHash,
    roles: JSON.stringify(user.roles),
    auth_provider: user.authProvider,
    oidc_issuer: user.oidc?.issuer ?? null,
    oidc_subject: user.oidc?.subject ?? null,
    oidc_linked_at: user.oidc ? toMillis(user.oidc.linkedAt) : null,
    disabled: user.disabled ? 1 : 0,
    token_version: user.tokenVersion,
    created_at: toMillis(user.createdAt),
    updated_at: toMillis(user.updatedAt),
  };
}

function toUser(row: UserRow | undefined): User | null {
  if (!row) return null;
  return {
    id: row.id,
    username: row.username,
    email: row.email,
    passwordHash: row.password_hash,
    roles: JSON.parse(row.roles) as RoleName[],
    authProvider: row.auth_provider,
    oidc: row.oidc_issuer !== null && row.oidc_subject !== null
      ? { issuer: row.oidc_issuer, subject: row.oidc_subject, linkedAt: fromMillis(row.oidc_linked_at ?? row.updated_at) }
      : null,
    disabled: row.disabled === 1,
    tokenVersion: row.token_version,
    createdAt: fromMillis(row.created_at),
    updatedAt: fromMillis(row.updated_at),
  };
}

function conflictFor(error: unknown, user: User): unknown {
  if (!isUniqueViolation(error)) return error;
  if (error.message.includes('users.username_key')) {
    return usernameTaken(user.username);
  }
  if (error.message.includes('users.email_key')) {
    return emailTaken();
  }
  if (error.message.includes('users.oidc_issuer')) {
    return oidcIdentityTaken();
  }
  return error;
}
