import { emailTaken, lastAdmin, oidcIdentityTaken, usernameTaken } from '../../domain/error-catalogue.js';
import type { PageRequest } from '../../domain/page.js';
import { offsetOf } from '../../domain/page.js';
import type { AccessChange, OidcIdentity, User } from '../../domain/user.js';
import { isActiveAdmin, normalizeEmail, usernameKey, withAccess } from '../../domain/user.js';
import type { Slice, UserRepository } from '../../application/ports.js';
import { compareText, copy, MemoryDatabase } from './memory-database.js';

/** UserRepository over process memory, with the same unique rules as the database stores. */
export class InMemoryUserRepository implements UserRepository {
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase()) {}

  async create(user: User): Promise<void> {
    this.insert(user);
  }

  /** The check and the insert run without an await between them, so no other write can come between. */
  async createAdminIfFirst(user: User): Promise<User> {
    const stored: User = this.db.users.size === 0 ? { ...user, roles: ['admin'] } : user;
    this.insert(stored);
    return copy(stored);
  }

  private insert(user: User): void {
    if (this.db.users.has(user.id)) throw new Error(`A user with id '${user.id}' already exists.`);
    this.assertUnique(user);
    this.db.users.set(user.id, copy(user));
  }

  async setPassword(id: string, passwordHash: string, updatedAt: Date): Promise<User | null> {
    const user = this.db.users.get(id);
    if (!user) return null;
    return this.put({ ...user, passwordHash, tokenVersion: user.tokenVersion + 1, updatedAt: copy(updatedAt) });
  }

  async updateAccess(id: string, change: AccessChange, updatedAt: Date): Promise<User | null> {
    const user = this.db.users.get(id);
    if (!user) return null;
    const changed = withAccess(user, copy(change), copy(updatedAt));
    if (!isActiveAdmin(changed)) this.assertAnotherAdmin(user);
    return this.put(changed);
  }

  async delete(id: string): Promise<boolean> {
    const user = this.db.users.get(id);
    if (!user) return false;
    this.assertAnotherAdmin(user);
    return this.db.users.delete(id);
  }

  async findById(id: string): Promise<User | null> {
    return this.found(this.db.users.get(id));
  }

  async findActiveSession(userId: string, tokenId: string): Promise<User | null> {
    return this.db.revocations.has(tokenId) ? null : this.found(this.db.users.get(userId));
  }

  async findByUsername(username: string): Promise<User | null> {
    const key = usernameKey(username);
    return this.found(this.all().find((u) => usernameKey(u.username) === key));
  }

  async findByEmail(email: string): Promise<User | null> {
    const key = normalizeEmail(email);
    return this.found(this.all().find((u) => normalizeEmail(u.email) === key));
  }

  async findByOidcIdentity(issuer: string, subject: string): Promise<User | null> {
    return this.found(this.all().find((u) => u.oidc?.issuer === issuer && u.oidc.subject === subject));
  }

  async list(page: PageRequest): Promise<Slice<User>> {
    const sorted = this.all().sort(
      (a, b) => a.createdAt.getTime() - b.createdAt.getTime() || compareText(a.id, b.id),
    );
    const start = offsetOf(page);
    return { items: sorted.slice(start, start + page.pageSize).map(copy), total: sorted.length };
  }

  async count(): Promise<number> {
    return this.db.users.size;
  }

  private put(user: User): User {
    this.db.users.set(user.id, copy(user));
    return copy(user);
  }

  /** Throws `last_admin` when user is the only active admin (callers run synchronously, so this is atomic). */
  private assertAnotherAdmin(user: User): void {
    if (isActiveAdmin(user) && !this.all().some((u) => u.id !== user.id && isActiveAdmin(u))) throw lastAdmin();
  }

  private all(): User[] {
    return [...this.db.users.values()];
  }

  private found(user: User | undefined): User | null {
    return user ? copy(user) : null;
  }

  private assertUnique(user: User): void {
    const others = this.all().filter((u) => u.id !== user.id);
    if (others.some((u) => usernameKey(u.username) === usernameKey(user.username))) {
      throw usernameTaken(user.username);
    }
    if (others.some((u) => normalizeEmail(u.email) === normalizeEmail(user.email))) {
      throw emailTaken();
    }
    const oidc = user.oidc;
    if (oidc && others.some((u) => u.oidc?.issuer === oidc.issuer && u.oidc.subject === oidc.subject)) {
      throw oidcIdentityTaken();
    }
  }

  async linkOidcIdentity(id: string, identity: OidcIdentity, updatedAt: Date): Promise<User | null> {
    const stored = this.db.users.get(id);
    if (!stored || stored.oidc !== null) return null;
    const linked: User = {
      ...stored, oidc: { issuer: identity.issuer, subject: identity.subject, linkedAt: updatedAt }, tokenVersion: stored.tokenVersion + 1, updatedAt,
    };
    this.assertUnique(linked);
    this.db.users.set(id, copy(linked));
    return copy(linked);
  }

  async unlinkOidcIdentity(id: string, updatedAt: Date): Promise<User | null> {
    const stored = this.db.users.get(id);
    if (!stored || stored.oidc === null) return null;
    const unlinked: User = { ...stored, oidc: null, tokenVersion: stored.tokenVersion + 1, updatedAt };
    this.db.users.set(id, copy(unlinked));
    return copy(unlinked);
  }
}
