import type { ApiKey } from '../../domain/api-key.js';
import type { Book, BookQuery } from '../../domain/book.js';
import type { Change, ChangeKind, ChangeRecord } from '../../domain/change-feed.js';
import type { KoboDevice } from '../../domain/kobo-device.js';
import type { MetadataPatch } from '../../domain/book-metadata.js';
import type { KoreaderDigests } from '../../domain/koreader-digest.js';
import type { SyncDocument } from '../../domain/kosync.js';
import type { ThrottleCounter, ThrottlePolicy } from '../../domain/login-throttle.js';
import type { PageRequest } from '../../domain/page.js';
import type { StoredProgress } from '../../domain/reading-progress.js';
import type { Shelf } from '../../domain/shelf.js';
import type { AccessChange, OidcIdentity, User } from '../../domain/user.js';

// The store's ports: every repository, its readiness check, and the shapes they share.

/** A slice of a paged query: the items of one page and the total across all pages. */
export interface Slice<T> {
  readonly items: T[];
  readonly total: number;
}

/** A change of a shelf's details; absent fields stay as stored. */
export interface ShelfDetailsPatch {
  readonly name?: string;
  readonly description?: string | null;
  readonly isPublic?: boolean;
}

export interface UserRepository {
  /** Inserts; throws ConflictError `username_already_exists` / `email_already_exists`. */
  create(user: User): Promise<void>;
  /**
   * Inserts the user like create, but with the roles `['admin']` when no account exists yet, decided in the
   * same atomic step (of concurrent first registrations exactly one becomes admin); returns the stored user.
   */
  createAdminIfFirst(user: User): Promise<User>;
  /** Sets the password hash and bumps the token version in one atomic write; null when there is no such user. */
  setPassword(id: string, passwordHash: string, updatedAt: Date): Promise<User | null>;
  /**
   * Atomically changes roles and/or the disabled flag; disabling bumps the token version (tokens stay
   * revoked after re-enabling). Throws ConflictError `last_admin`, in the same atomic step, when no
   * active admin would remain. Null when there is no such user.
   */
  updateAccess(id: string, change: AccessChange, updatedAt: Date): Promise<User | null>;
  /** Removes the user; false when there was none; throws ConflictError `last_admin` (same atomic step) for the last active admin. */
  delete(id: string): Promise<boolean>;
  findById(id: string): Promise<User | null>;
  /**
   * The account a bearer token names, in the one read authentication makes per request: the user by id
   * unless the token id (`jti`) is revoked; null for either. Revocation is seen at once by every
   * instance and worker (nothing is cached).
   */
  findActiveSession(userId: string, tokenId: string): Promise<User | null>;
  /** Case-insensitive username match. */
  findByUsername(username: string): Promise<User | null>;
  /** Matches the lower-cased e-mail. */
  findByEmail(email: string): Promise<User | null>;
  findByOidcIdentity(issuer: string, subject: string): Promise<User | null>;
  /** Users ordered by creation time, then id. */
  list(page: PageRequest): Promise<Slice<User>>;
  count(): Promise<number>;
  /**
   * Links the SSO identity to the account only while it has none, linked at `updatedAt`, and bumps the
   * token version (the account's other sessions end), in one atomic write; null when there is no such
   * account or it already has one. Throws ConflictError `oidc_identity_already_linked` when another account holds it.
   */
  linkOidcIdentity(id: string, identity: OidcIdentity, updatedAt: Date): Promise<User | null>;
  /** Removes the account's SSO identity and bumps the token version, in one atomic write; null when there is no such account or it has none. */
  unlinkOidcIdentity(id: string, updatedAt: Date): Promise<User | null>;
}

export interface TokenRevocationRepository {
  /** Denies the token id until `until` (its expiry plus the clock tolerance, `revokedUntil`). Idempotent. */
  revoke(jti: string, until: Date): Promise<void>;
  isRevoked(jti: string): Promise<boolean>;
  /** Forgets revocations whose `until` has passed; returns how many. */
  purgeExpired(now: Date): Promise<number>;
}

export interface LoginThrottleRepository {
  /** The key's counter, or null when it has none. */
  get(key: string): Promise<ThrottleCounter | null>;
  /**
   * Atomically reserves one attempt before the secret is checked: while the key is blocked, counts
   * nothing and returns the ms to wait; else counts the attempt (domain `reserveAttempt`) and returns 0.
   */
  reserve(key: string, now: Date, policy: ThrottlePolicy): Promise<number>;
  /** Atomically gives one reserved attempt back (domain `afterRelease`): never below 0, never lifting a block. */
  release(key: string, now: Date, policy: ThrottlePolicy): Promise<void>;
  /** Forgets the key, block included. */
  reset(key: string): Promise<void>;
}

/**
 * The client addresses (buckets, see `addressBucket`) each account signed in from, and when last, so a
 * lockout spares the account's own addresses (API.md "Lockouts cannot be used to lock people out").
 */
export interface KnownAddressRepository {
  /** Records a sign-in of the account from the address at `at`, in one upsert that only ever moves the time forward. */
  remember(userId: string, address: string, at: Date): Promise<void>;
  /** When the account last signed in from the address; null when never, or since forgotten. */
  lastSignIn(userId: string, address: string): Promise<Date | null>;
  /** The addresses the account signed in from at or after `since`, most recent first, at most `limit`. */
  recent(userId: string, since: Date, limit: number): Promise<string[]>;
  /** Forgets every address of a deleted account. */
  deleteForUser(userId: string): Promise<void>;
  /** Forgets sign-ins before `before` (housekeeping); returns how many. */
  purgeBefore(before: Date): Promise<number>;
}

export interface ApiKeyRepository {
  /** Inserts; the lookup digest is unique. */
  create(key: ApiKey): Promise<void>;
  /** The key with this lookup digest (`sha256(md5hex(secret))`), or null. */
  findByLookup(lookup: string): Promise<ApiKey | null>;
  /** The owner's keys, newest first, then by id. */
  listByOwner(ownerId: string, page: PageRequest): Promise<Slice<ApiKey>>;
  /** Deletes the key only when ownerId owns it; false otherwise. */
  revoke(ownerId: string, id: string): Promise<boolean>;
  /** Sets lastUsedAt to now in one conditional write, only when it is unset or older than minIntervalMs; true when written. */
  touchLastUsed(id: string, now: Date, minIntervalMs: number): Promise<boolean>;
  /** Deletes every key of the owner; returns how many. */
  deleteForUser(ownerId: string): Promise<number>;
}

export interface BookRepository {
  /** Inserts; throws ConflictError `duplicate_book` (extra `book_id`) on an existing SHA-256. */
  create(book: Book): Promise<void>;
  /** Applies a normalised metadata patch and updatedAt atomically (no concurrent edit is lost); null when absent. */
  updateMetadata(id: string, patch: MetadataPatch, updatedAt: Date): Promise<Book | null>;
  delete(id: string): Promise<boolean>;
  findById(id: string): Promise<Book | null>;
  findBySha256(sha256: string): Promise<Book | null>;
  /** Books for the given ids, in no particular order; missing ids are left out. */
  findByIds(ids: readonly string[]): Promise<Book[]>;
  /** The given ids that name stored books; reads no book rows, so it stays cheap for 10,000 ids. */
  existingIds(ids: readonly string[]): Promise<ReadonlySet<string>>;
  search(query: BookQuery): Promise<Slice<Book>>;
}

/** One book's digests, for BookDigestRepository.putMany. */
export interface BookDigestEntry {
  readonly bookId: string;
  readonly digests: KoreaderDigests;
}

/** KOReader's digests of each stored book, so a kosync `document` finds its book. */
export interface BookDigestRepository {
  /** Records (or replaces) the book's digests. */
  put(bookId: string, digests: KoreaderDigests): Promise<void>;
  /** Records (or replaces) several books' digests in one write (one transaction, one round trip); books gone are skipped. */
  putMany(entries: readonly BookDigestEntry[]): Promise<void>;
  /**
   * The id of the book whose partial MD5, else whose file-name MD5, is this digest (lowercase hex);
   * null when none, or when a file-name digest is shared by several books. Indexed lookups only.
   */
  findBookId(digest: string): Promise<string | null>;
  /** Up to `limit` ids of stored books without digests, in id order after `afterId`: the backfill's cursor. */
  booksWithoutDigests(afterId: string | null, limit: number): Promise<string[]>;
  /** Forgets a deleted book's digests. */
  deleteForBook(bookId: string): Promise<void>;
}

/** KOReader positions of documents that match no Stacks book, keyed by (user, document). */
export interface SyncDocumentRepository {
  /** The user's position in the document; null when none was pushed. */
  get(userId: string, document: string): Promise<SyncDocument | null>;
  /**
   * Inserts or replaces the (user, document) record, then forgets the user's records after the newest
   * `keep` (newest by `updatedAt`, then document): the least recently synced go first, and never more
   * than `keep` stay once the writes in flight are done.
   */
  put(record: SyncDocument, keep: number): Promise<void>;
  /** Removes every record of a deleted user. */
  deleteForUser(userId: string): Promise<void>;
}

/** Each user's reading state per book, keyed by (user, book). */
export interface ProgressRepository {
  /** The user's stored state of the book; null when there is none (the book is unread). */
  get(userId: string, bookId: string): Promise<StoredProgress | null>;
  /**
   * Inserts or replaces the (user, book) record in one indexed write. Throws NotFoundError
   * `book_not_found` where the store itself knows the book is gone (memory, SQLite foreign keys).
   */
  put(progress: StoredProgress): Promise<void>;
  /** The user's stored states of these books, in no particular order; books without one are left out. */
  findMany(userId: string, bookIds: readonly string[]): Promise<StoredProgress[]>;
  /** Removes the user's state of the book; false when there was none. */
  deleteOne(userId: string, bookId: string): Promise<boolean>;
  /** Removes every user's state of a deleted book. */
  deleteForBook(bookId: string): Promise<void>;
  /** Removes every state of a deleted user. */
  deleteForUser(userId: string): Promise<void>;
}

export interface ShelfRepository {
  /** Inserts with its ordered book ids; throws ConflictError `shelf_name_taken`. */
  create(shelf: Shelf): Promise<void>;
  /** Sets only the given details and updatedAt, atomically; false when absent; throws ConflictError `shelf_name_taken`. */
  updateDetails(id: string, patch: ShelfDetailsPatch, updatedAt: Date): Promise<boolean>;
  /** Replaces the whole ordered membership. */
  replaceBooks(shelfId: string, bookIds: readonly string[], updatedAt: Date): Promise<void>;
  /** Appends at the end; no-op (false) when already there. Cost does not grow with the shelf. */
  addBook(shelfId: string, bookId: string, updatedAt: Date): Promise<boolean>;
  /** Returns false when the book was not on the shelf. */
  removeBook(shelfId: string, bookId: string, updatedAt: Date): Promise<boolean>;
  /** Removes a deleted book from every shelf. */
  removeBookEverywhere(bookId: string, updatedAt: Date): Promise<void>;
  delete(id: string): Promise<boolean>;
  findById(id: string): Promise<Shelf | null>;
  /** Shelves owned by ownerId, plus every public shelf unless onlyOwn; ordered by name. */
  listVisible(ownerId: string, onlyOwn: boolean, page: PageRequest): Promise<Slice<Shelf>>;
  /** One page of the shelf's book ids in shelf order; page N costs what page 1 does. */
  bookIdsPage(shelfId: string, page: PageRequest): Promise<Slice<string>>;
}

/** Kobo e-readers allowed to sync, and the books each has archived (hidden from it). */
export interface KoboDeviceRepository {
  /** Inserts; the lookup digest is unique. */
  create(device: KoboDevice): Promise<void>;
  /** The device whose sync URL secret has this digest, or null. */
  findByLookup(lookup: string): Promise<KoboDevice | null>;
  /** The owner's devices, newest first, then by id. */
  listByOwner(ownerId: string, page: PageRequest): Promise<Slice<KoboDevice>>;
  /** Deletes the device (and its archived books) only when ownerId owns it; false otherwise. */
  revoke(ownerId: string, id: string): Promise<boolean>;
  /** Sets lastUsedAt in one conditional write, only when it is unset or at least minIntervalMs old; true when written. */
  touchLastUsed(id: string, now: Date, minIntervalMs: number): Promise<boolean>;
  /** Deletes every device of the owner; returns how many. */
  deleteForUser(ownerId: string): Promise<number>;
  /** Hides the book from the device (idempotent). */
  archive(deviceId: string, bookId: string): Promise<void>;
  /** Which of these books the device has archived. */
  archivedAmong(deviceId: string, bookIds: readonly string[]): Promise<ReadonlySet<string>>;
}

/** One window of ChangeFeedRepository.staleProgress: the reading states to record again, and where to go on. */
export interface StaleProgressWindow {
  readonly stale: readonly { readonly userId: string; readonly bookId: string }[];
  readonly next: string | null;
}

/** The library's change feed (domain/change-feed.ts): the latest change of each entity, in commit order. */
export interface ChangeFeedRepository {
  /**
   * Records each change as its entity's only entry, with a sequence number above every entry already
   * committed, in the order given; an entity that was removed (or never seen) starts a new `firstSeq`.
   */
  record(changes: readonly ChangeRecord[], at: Date): Promise<void>;
  /** Entries of this kind in these groups with seq above `after`, in seq order, at most `limit`. */
  since(kind: ChangeKind, groups: readonly string[], after: number, limit: number): Promise<Change[]>;
  /** The highest sequence number recorded; 0 when none. */
  head(): Promise<number>;
  /** Up to `limit` ids of stored books without a book entry, in id order after `afterId`: the backfill's cursor. */
  untrackedBooks(afterId: string | null, limit: number): Promise<string[]>;
  /** Up to `limit` book entries not marked removed, in entity id order after `afterId` (the reconciler's walk). */
  presentBooks(afterId: string | null, limit: number): Promise<string[]>;
  /**
   * The reconciler's walk of reading states: of up to `limit` stored states after the cursor (in the store's
   * own order), those whose entry is missing, marked removed, or older than the state (a crash between the
   * write and its entry), and the cursor of the last state looked at; `next` is null when none was left.
   */
  staleProgress(after: string | null, limit: number): Promise<StaleProgressWindow>;
  /** Forgets removal entries recorded before `before`; returns how many. */
  purgeRemovedBefore(before: Date): Promise<number>;
}

/** Whether the store answers (readiness). */
export interface HealthCheck {
  ping(): Promise<void>;
}

/** Single-use values with an expiry (OIDC login codes, OIDC states), shared by every instance. */
export interface OneTimeCodeRepository {
  /** Stores value under key until expiresAt; a second put of the same key replaces it. */
  put(key: string, value: string, expiresAt: Date): Promise<void>;
  /** Atomically returns and removes the value; null when absent, already taken or expired. */
  take(key: string, now: Date): Promise<string | null>;
  /** Forgets expired values; returns how many. */
  purgeExpired(now: Date): Promise<number>;
}
