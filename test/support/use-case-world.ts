import { JwtTokenService } from '../../src/adapters/identity/jwt-token-service.js';
import { createMemoryStore } from '../../src/adapters/memory/memory-store.js';
import type { BlobStore, MetadataReader, PasswordHasher, UploadStaging } from '../../src/application/ports.js';
import { recordingRepositories } from '../../src/application/recording-repositories.js';
import { AuthenticateKoboDevice } from '../../src/application/use-cases/authenticate-kobo-device.js';
import { EditKoboTags } from '../../src/application/use-cases/edit-kobo-tags.js';
import { CreateKoboDevice, ListKoboDevices, RevokeKoboDevice } from '../../src/application/use-cases/kobo-devices.js';
import { ArchiveKoboBook, GetKoboBook } from '../../src/application/use-cases/kobo-library.js';
import { SyncKoboLibrary } from '../../src/application/use-cases/sync-kobo-library.js';
import { AddBookToShelf } from '../../src/application/use-cases/add-book-to-shelf.js';
import { Authenticate } from '../../src/application/use-cases/authenticate.js';
import { Authority } from '../../src/application/use-cases/authority.js';
import { AccountLockout } from '../../src/application/use-cases/account-lockout.js';
import { AuthEvents } from '../../src/application/use-cases/auth-events.js';
import { CurrentPasswordCheck } from '../../src/application/use-cases/current-password.js';
import { UnlockUser } from '../../src/application/use-cases/unlock-user.js';
import { StartOidcLink } from '../../src/application/use-cases/start-oidc-link.js';
import { UnlinkOidc } from '../../src/application/use-cases/unlink-oidc.js';
import { UnlinkUserOidc } from '../../src/application/use-cases/unlink-user-oidc.js';
import { AuthenticateApiKey } from '../../src/application/use-cases/authenticate-api-key.js';
import { AuthenticateSyncUser } from '../../src/application/use-cases/authenticate-sync-user.js';
import { CreateApiKey } from '../../src/application/use-cases/create-api-key.js';
import { ListApiKeys } from '../../src/application/use-cases/list-api-keys.js';
import { RevokeApiKey } from '../../src/application/use-cases/revoke-api-key.js';
import { BootstrapAdmin } from '../../src/application/use-cases/bootstrap-admin.js';
import { ChangePassword } from '../../src/application/use-cases/change-password.js';
import { CompleteOidcLogin } from '../../src/application/use-cases/complete-oidc-login.js';
import { CreateShelf } from '../../src/application/use-cases/create-shelf.js';
import { CreateUser } from '../../src/application/use-cases/create-user.js';
import { DeleteBook } from '../../src/application/use-cases/delete-book.js';
import { DeleteProgress } from '../../src/application/use-cases/delete-progress.js';
import { DeleteShelf } from '../../src/application/use-cases/delete-shelf.js';
import { DeleteUser } from '../../src/application/use-cases/delete-user.js';
import { ExchangeOidcCode } from '../../src/application/use-cases/exchange-oidc-code.js';
import { FindUserByUsername } from '../../src/application/use-cases/find-user-by-username.js';
import { GetBook } from '../../src/application/use-cases/get-book.js';
import { GetBookCover } from '../../src/application/use-cases/get-book-cover.js';
import { GetBookFile } from '../../src/application/use-cases/get-book-file.js';
import { GetProgress } from '../../src/application/use-cases/get-progress.js';
import { GetShelf } from '../../src/application/use-cases/get-shelf.js';
import { GetUser } from '../../src/application/use-cases/get-user.js';
import { ListBooks } from '../../src/application/use-cases/list-books.js';
import { ListRoles } from '../../src/application/use-cases/list-roles.js';
import { ListShelfBooks } from '../../src/application/use-cases/list-shelf-books.js';
import { ListShelves } from '../../src/application/use-cases/list-shelves.js';
import { ListUsers } from '../../src/application/use-cases/list-users.js';
import { LoginUser } from '../../src/application/use-cases/login-user.js';
import { Logout } from '../../src/application/use-cases/logout.js';
import { OidcAccounts } from '../../src/application/use-cases/oidc-accounts.js';
import { OidcAttemptLimiter } from '../../src/application/use-cases/oidc-attempt-limiter.js';
import { PullSyncProgress } from '../../src/application/use-cases/pull-sync-progress.js';
import { PushSyncProgress } from '../../src/application/use-cases/push-sync-progress.js';
import { ReconcileBookStorage } from '../../src/application/use-cases/reconcile-book-storage.js';
import { RegisterUser } from '../../src/application/use-cases/register-user.js';
import { RemoveBookFromShelf } from '../../src/application/use-cases/remove-book-from-shelf.js';
import { ResetPassword } from '../../src/application/use-cases/reset-password.js';
import { StartOidcLogin } from '../../src/application/use-cases/start-oidc-login.js';
import { UpdateBook } from '../../src/application/use-cases/update-book.js';
import { UpdateProgress } from '../../src/application/use-cases/update-progress.js';
import { UpdateShelf } from '../../src/application/use-cases/update-shelf.js';
import { UpdateUser } from '../../src/application/use-cases/update-user.js';
import { UploadBook } from '../../src/application/use-cases/upload-book.js';
import { actorFor, type Actor } from '../../src/domain/actor.js';
import type { Book } from '../../src/domain/book.js';
import type { User } from '../../src/domain/user.js';
import { aBook, aUser } from './builders.js';
import { FakeClock } from './clock.js';
import { SequentialIds } from './ids.js';
import { FakeOidcProvider } from './oidc-provider.js';
import { PlainPasswordHasher } from './password-hasher.js';
import { SequentialSecrets, SequentialUrlSecrets } from './secrets.js';
import { DEFAULT_WORLD_SETTINGS, type WorldSettings } from './world-settings.js';

export interface WorldFiles {
  readonly staging: UploadStaging;
  readonly blobs: BlobStore;
  readonly metadata: MetadataReader;
}

const noFile = (): never => {
  throw new Error('this world keeps no files: use aBookWorld()');
};
const NO_FILES: WorldFiles = {
  staging: { stage: noFile, discard: noFile, clear: noFile },
  blobs: { putStaged: noFile, putBytes: noFile, read: noFile, readSpans: noFile, size: noFile, delete: noFile, keys: noFile },
  metadata: { read: noFile },
};

export interface WorldOptions extends Partial<WorldSettings> {
  /** Prefix of the ids the use cases give new records (`id-1`, `id-2`, ...). */
  readonly idPrefix?: string;
  readonly files?: WorldFiles;
  /** Replaces the deterministic PlainPasswordHasher (e.g. with one that pauses, to interleave writers). */
  readonly hasher?: PasswordHasher;
}

/**
 * Every use case over one fresh in-memory store, a fixed clock, sequential ids, the real JWT
 * service, a deterministic password hasher and a fake OpenID Provider. Writes of books, shelves and
 * reading states go to the change feed too (`store.changes`), as the service wires them.
 */
export function aWorld(options: WorldOptions = {}) {
  const settings: WorldSettings = { ...DEFAULT_WORLD_SETTINGS, ...options };
  const store = createMemoryStore();
  const { users, revocations, throttle, oneTimeCodes: codes, apiKeys, digests, syncDocuments, knownAddresses, koboDevices } = store;
  const { staging, blobs, metadata } = options.files ?? NO_FILES;
  const clock = new FakeClock();
  const { books, shelves, progress } = recordingRepositories(store, store.changes, clock);
  const ids = new SequentialIds(options.idPrefix ?? 'id-');
  const hasher: PasswordHasher = options.hasher ?? new PlainPasswordHasher();
  const tokens = new JwtTokenService({ secret: settings.jwtSecret, expiresInSeconds: 3600, clock, ids: new SequentialIds('jti-') });
  const secrets = new SequentialSecrets();
  const oidc = new FakeOidcProvider();
  const limiter = new OidcAttemptLimiter(throttle, clock, settings.oidcPolicy);
  const oidcAccounts = new OidcAccounts(users, clock, ids, settings.oidcAccounts);
  /** Every log entry the use cases wrote (auth events), in order. */
  const logged: { details: Record<string, unknown>; message: string }[] = [];
  const events = new AuthEvents({ info: (details, message) => logged.push({ details: { ...details }, message }), warn: () => undefined }, secrets);
  const lockout = new AccountLockout(throttle, knownAddresses, clock, settings.loginPolicies.account);
  const authenticateApiKey = new AuthenticateApiKey(apiKeys, users, secrets, throttle, clock, settings.loginPolicies.address, lockout);
  const authority = new Authority(users, apiKeys, clock, store.koboDevices);
  const currentPassword = new CurrentPasswordCheck(hasher, throttle, clock, settings.loginPolicies.account, events);
  const startOidcLogin = new StartOidcLogin(oidc, codes, secrets, clock, limiter, settings.oidcFlow);
  const updateProgress = new UpdateProgress(books, progress, clock, authority);
  const createShelf = new CreateShelf(shelves, books, clock, ids, authority);
  const updateShelf = new UpdateShelf(shelves, books, clock, authority);
  const deleteShelf = new DeleteShelf(shelves, authority);
  const addBookToShelf = new AddBookToShelf(shelves, books, clock, authority);
  const removeBookFromShelf = new RemoveBookFromShelf(shelves, clock, authority);
  return {
    store, clock, ids, hasher, tokens, secrets, oidc, authority, lockout, events, logged,
    /** The book, shelf and progress repositories the use cases write through: each write is also recorded in `store.changes`. */
    recorded: { books, shelves, progress },
    bootstrapAdmin: new BootstrapAdmin(users, hasher, clock, ids),
    registerUser: new RegisterUser(users, hasher, tokens, clock, ids, settings.registration),
    loginUser: new LoginUser(users, hasher, tokens, throttle, clock, settings.loginPolicies, settings.registration.localLogin, lockout, events),
    authenticate: new Authenticate(tokens, authority, authenticateApiKey, events),
    authenticateApiKey,
    createApiKey: new CreateApiKey(apiKeys, users, secrets, clock, ids, authority),
    listApiKeys: new ListApiKeys(apiKeys, users),
    revokeApiKey: new RevokeApiKey(apiKeys, users, authority),
    logout: new Logout(revocations),
    changePassword: new ChangePassword(hasher, users, clock, currentPassword, authority),
    createUser: new CreateUser(users, hasher, clock, ids, authority),
    findUserByUsername: new FindUserByUsername(users),
    listUsers: new ListUsers(users, lockout),
    getUser: new GetUser(users, lockout),
    unlockUser: new UnlockUser(users, lockout, authority),
    updateUser: new UpdateUser(users, clock, authority, lockout),
    deleteUser: new DeleteUser(users, progress, apiKeys, syncDocuments, authority, knownAddresses, store.koboDevices),
    resetPassword: new ResetPassword(users, hasher, clock, authority, lockout),
    listRoles: new ListRoles(),
    listBooks: new ListBooks(books),
    getBook: new GetBook(books),
    updateBook: new UpdateBook(books, clock, authority),
    deleteBook: new DeleteBook(books, shelves, blobs, clock, progress, digests, authority),
    getBookFile: new GetBookFile(books, blobs),
    getBookCover: new GetBookCover(books, blobs),
    uploadBook: new UploadBook(books, staging, blobs, metadata, clock, ids, settings.maxUploadBytes, digests, secrets, authority),
    getProgress: new GetProgress(books, progress),
    updateProgress,
    authenticateSyncUser: new AuthenticateSyncUser(users, authenticateApiKey, throttle, clock, lockout, events),
    pushSyncProgress: new PushSyncProgress(digests, updateProgress, syncDocuments, clock, authority),
    pullSyncProgress: new PullSyncProgress(digests, progress, syncDocuments),
    deleteProgress: new DeleteProgress(books, progress, authority),
    reconcileBookStorage: new ReconcileBookStorage(books, staging, blobs, clock),
    listShelves: new ListShelves(shelves),
    createShelf,
    getShelf: new GetShelf(shelves),
    updateShelf,
    deleteShelf,
    listShelfBooks: new ListShelfBooks(shelves, books),
    addBookToShelf,
    removeBookFromShelf,
    // Sync URL secrets shaped as real ones (43 URL-safe characters), so AuthenticateKoboDevice takes them.
    createKoboDevice: new CreateKoboDevice(koboDevices, shelves, new SequentialUrlSecrets(), clock, ids, authority),
    listKoboDevices: new ListKoboDevices(koboDevices),
    revokeKoboDevice: new RevokeKoboDevice(koboDevices, authority),
    authenticateKoboDevice: new AuthenticateKoboDevice(koboDevices, users, secrets, throttle, clock,
      { address: settings.loginPolicies.address, device: settings.loginPolicies.account }, events),
    syncKoboLibrary: new SyncKoboLibrary(store.changes, books, shelves, progress, koboDevices, clock, settings.koboSyncPageSize),
    getKoboBook: new GetKoboBook(books, shelves),
    archiveKoboBook: new ArchiveKoboBook(books, shelves, koboDevices, authority),
    editKoboTags: new EditKoboTags(shelves, createShelf, updateShelf, deleteShelf, addBookToShelf, removeBookFromShelf),
    oidcAccounts,
    oidcAttemptLimiter: limiter,
    startOidcLogin,
    startOidcLink: new StartOidcLink(authority, currentPassword, startOidcLogin),
    unlinkOidc: new UnlinkOidc(users, authority, currentPassword, clock),
    unlinkUserOidc: new UnlinkUserOidc(users, authority, clock),
    completeOidcLogin: new CompleteOidcLogin(oidc, oidcAccounts, codes, secrets, tokens, clock, limiter, settings.oidcFlow),
    exchangeOidcCode: new ExchangeOidcCode(codes, users, secrets, tokens, clock),
    /** Stores a user built by aUser(overrides) and returns it with the actor it acts as: signed in with a token of its current version. */
    async storeUser(overrides: Partial<User> = {}): Promise<{ user: User; actor: Actor }> {
      const user = aUser(overrides);
      await users.create(user);
      return { user, actor: actorFor(user, { kind: 'token', jti: `session-of-${user.id}`, tokenVersion: user.tokenVersion }) };
    },
    /** Stores a book built by aBook(overrides). */
    async storeBook(overrides: Partial<Book> = {}): Promise<Book> {
      const book = aBook(overrides);
      await books.create(book);
      return book;
    },
    /** Stores n books and returns them in order. */
    async storeBooks(n: number): Promise<Book[]> {
      const stored: Book[] = [];
      for (let i = 0; i < n; i++) stored.push(await this.storeBook());
      return stored;
    },
  };
}

export type World = ReturnType<typeof aWorld>;

/** A world whose ids start `shelf-`, with four books stored; `ids(2, 0)` are the ids of the third and the first. */
export async function aShelfWorld(): Promise<{ w: World; ids: (...indexes: number[]) => string[] }> {
  const w = aWorld({ idPrefix: 'shelf-' });
  const books = await w.storeBooks(4);
  return { w, ids: (...indexes) => indexes.map((i) => books[i]!.id) };
}
