import { instanceCachingFactory, type DependencyContainer, type InjectionToken } from 'tsyringe';
import {
  AccountLockout, AddBookToShelf, ArchiveKoboBook, AuthEvents, Authenticate, AuthenticateKoboDevice, Authority, AuthenticateApiKey, AuthenticateSyncUser,
  BackfillBookDigests, BackfillChangeFeed, BootstrapAdmin, ChangePassword, CompleteOidcLogin, CreateApiKey, CreateKoboDevice, CreateShelf, CreateUser,
  CurrentPasswordCheck, DeleteBook, DeleteProgress, DeleteShelf, DeleteUser, ExchangeOidcCode, GetKoboBook, GetKoboBookFile, GetKoboCover, ListKoboDevices,
  RevokeKoboDevice, EditKoboTags, SyncKoboLibrary,
  FindUserByUsername, GetBook, GetBookCover, GetBookFile, GetProgress, GetShelf, GetUser, ListApiKeys, ListBooks, ListRoles,
  ListShelfBooks, ListShelves, ListUsers, type LoginPolicies, LoginUser, Logout, OIDC_ATTEMPT_POLICY, OidcAccounts,
  OidcAttemptLimiter, PullSyncProgress, PurgeExpiredRecords, PushSyncProgress, ReconcileBookStorage, RegisterUser,
  RemoveBookFromShelf, ResetPassword, RevokeApiKey, RunHousekeeping, StartOidcLink, StartOidcLogin, UpdateBook, UpdateProgress,
  UnlinkOidc, UnlinkUserOidc, UnlockUser, UpdateShelf, UpdateUser, UploadBook,
} from '../index.js';
import type { Config } from './config.js';

/** Entries of the change feed one Kobo sync page reads at most (the page size of Calibre-Web and Komga). */
export const KOBO_SYNC_PAGE_SIZE = 100;
import { portsOf, type Ports } from './tokens.js';

const OIDC_STATE_TTL_MS = 10 * 60_000;

/** Registers every use case, built on first resolve from the ports, under its own class. */
export function registerUseCases(di: DependencyContainer, config: Config, loginPolicies: LoginPolicies): void {
  const singleton = <V>(token: InjectionToken<V>, build: (p: Ports, c: DependencyContainer) => V) =>
    di.register<V>(token, { useFactory: instanceCachingFactory<V>((c) => build(portsOf(c), c)) });

  singleton(RegisterUser, (p) => new RegisterUser(p.UserRepository, p.PasswordHasher, p.TokenService, p.Clock, p.IdGenerator, {
    registrationOpen: config.registrationOpen,
    localLogin: config.localLogin,
    defaultRole: config.defaultRole,
    firstUserBecomesAdmin: config.admin === null,
  }));
  singleton(AuthEvents, (p) => new AuthEvents(p.Logger, p.SecretGenerator));
  singleton(AccountLockout, (p) => new AccountLockout(p.LoginThrottleRepository, p.KnownAddressRepository, p.Clock, loginPolicies.account));
  singleton(CurrentPasswordCheck, (p, c) => new CurrentPasswordCheck(p.PasswordHasher, p.LoginThrottleRepository, p.Clock, loginPolicies.account, c.resolve(AuthEvents)));
  singleton(LoginUser, (p, c) => new LoginUser(
    p.UserRepository, p.PasswordHasher, p.TokenService, p.LoginThrottleRepository, p.Clock, loginPolicies, config.localLogin, c.resolve(AccountLockout), c.resolve(AuthEvents)));
  singleton(AuthenticateApiKey, (p, c) => new AuthenticateApiKey(
    p.ApiKeyRepository, p.UserRepository, p.SecretGenerator, p.LoginThrottleRepository, p.Clock, loginPolicies.address, c.resolve(AccountLockout)));
  singleton(Authority, (p) => new Authority(p.UserRepository, p.ApiKeyRepository, p.Clock, p.KoboDeviceRepository));
  singleton(Authenticate, (p, c) => new Authenticate(p.TokenService, c.resolve(Authority), c.resolve(AuthenticateApiKey), c.resolve(AuthEvents)));
  singleton(CreateApiKey, (p, c) => new CreateApiKey(p.ApiKeyRepository, p.UserRepository, p.SecretGenerator, p.Clock, p.IdGenerator, c.resolve(Authority)));
  singleton(ListApiKeys, (p) => new ListApiKeys(p.ApiKeyRepository, p.UserRepository));
  singleton(RevokeApiKey, (p, c) => new RevokeApiKey(p.ApiKeyRepository, p.UserRepository, c.resolve(Authority)));
  singleton(Logout, (p) => new Logout(p.TokenRevocationRepository));
  singleton(ChangePassword, (p, c) => new ChangePassword(p.PasswordHasher, p.UserRepository, p.Clock, c.resolve(CurrentPasswordCheck), c.resolve(Authority)));
  singleton(BootstrapAdmin, (p) => new BootstrapAdmin(p.UserRepository, p.PasswordHasher, p.Clock, p.IdGenerator));
  singleton(CreateUser, (p, c) => new CreateUser(p.UserRepository, p.PasswordHasher, p.Clock, p.IdGenerator, c.resolve(Authority)));
  singleton(ResetPassword, (p, c) => new ResetPassword(p.UserRepository, p.PasswordHasher, p.Clock, c.resolve(Authority), c.resolve(AccountLockout)));
  singleton(FindUserByUsername, (p) => new FindUserByUsername(p.UserRepository));
  singleton(ListUsers, (p, c) => new ListUsers(p.UserRepository, c.resolve(AccountLockout)));
  singleton(GetUser, (p, c) => new GetUser(p.UserRepository, c.resolve(AccountLockout)));
  singleton(UnlockUser, (p, c) => new UnlockUser(p.UserRepository, c.resolve(AccountLockout), c.resolve(Authority)));
  singleton(UnlinkOidc, (p, c) => new UnlinkOidc(p.UserRepository, c.resolve(Authority), c.resolve(CurrentPasswordCheck), p.Clock));
  singleton(UnlinkUserOidc, (p, c) => new UnlinkUserOidc(p.UserRepository, c.resolve(Authority), p.Clock));
  singleton(UpdateUser, (p, c) => new UpdateUser(p.UserRepository, p.Clock, c.resolve(Authority), c.resolve(AccountLockout)));
  singleton(DeleteUser, (p, c) => new DeleteUser(p.UserRepository, p.ProgressRepository, p.ApiKeyRepository, p.SyncDocumentRepository, c.resolve(Authority), p.KnownAddressRepository, p.KoboDeviceRepository));
  singleton(ListRoles, () => new ListRoles());

  singleton(UploadBook, (p, c) =>
    new UploadBook(p.BookRepository, p.UploadStaging, p.BlobStore, p.MetadataReader, p.Clock, p.IdGenerator, config.maxUploadBytes, p.BookDigestRepository, p.SecretGenerator, c.resolve(Authority)));
  singleton(ListBooks, (p) => new ListBooks(p.BookRepository));
  singleton(GetBook, (p) => new GetBook(p.BookRepository));
  singleton(UpdateBook, (p, c) => new UpdateBook(p.BookRepository, p.Clock, c.resolve(Authority)));
  singleton(DeleteBook, (p, c) => new DeleteBook(p.BookRepository, p.ShelfRepository, p.BlobStore, p.Clock, p.ProgressRepository, p.BookDigestRepository, c.resolve(Authority)));
  singleton(GetBookFile, (p) => new GetBookFile(p.BookRepository, p.BlobStore));
  singleton(GetBookCover, (p) => new GetBookCover(p.BookRepository, p.BlobStore));
  singleton(GetProgress, (p) => new GetProgress(p.BookRepository, p.ProgressRepository));
  singleton(UpdateProgress, (p, c) => new UpdateProgress(p.BookRepository, p.ProgressRepository, p.Clock, c.resolve(Authority)));
  singleton(DeleteProgress, (p, c) => new DeleteProgress(p.BookRepository, p.ProgressRepository, c.resolve(Authority)));
  singleton(AuthenticateSyncUser, (p, c) =>
    new AuthenticateSyncUser(p.UserRepository, c.resolve(AuthenticateApiKey), p.LoginThrottleRepository, p.Clock, c.resolve(AccountLockout), c.resolve(AuthEvents)));
  singleton(PushSyncProgress, (p, c) => new PushSyncProgress(p.BookDigestRepository, c.resolve(UpdateProgress), p.SyncDocumentRepository, p.Clock, c.resolve(Authority)));
  singleton(PullSyncProgress, (p) => new PullSyncProgress(p.BookDigestRepository, p.ProgressRepository, p.SyncDocumentRepository));
  singleton(ReconcileBookStorage, (p) => new ReconcileBookStorage(p.BookRepository, p.UploadStaging, p.BlobStore, p.Clock));
  singleton(BackfillBookDigests, (p) => new BackfillBookDigests(p.BookRepository, p.BookDigestRepository, p.BlobStore, p.SecretGenerator));
  singleton(PurgeExpiredRecords, (p) => new PurgeExpiredRecords(p.TokenRevocationRepository, p.OneTimeCodeRepository, p.Clock, p.KnownAddressRepository));
  singleton(RunHousekeeping, (p, c) => new RunHousekeeping(p.HousekeepingLeases, p.Clock, p.Logger, [
    ...p.StoreHousekeeping,
    { name: 'expired records purged', run: () => c.resolve(PurgeExpiredRecords).execute() },
    { name: 'upload temp files cleared', everyInstance: true, run: () => c.resolve(ReconcileBookStorage).clearTempFiles() },
    { name: 'book storage reconciled', run: () => c.resolve(ReconcileBookStorage).execute() },
    { name: 'KOReader digests backfilled', run: () => c.resolve(BackfillBookDigests).execute() },
    { name: 'change feed reconciled', run: () => c.resolve(BackfillChangeFeed).execute() },
  ]));

  singleton(CreateKoboDevice, (p, c) => new CreateKoboDevice(p.KoboDeviceRepository, p.ShelfRepository, p.SecretGenerator, p.Clock, p.IdGenerator, c.resolve(Authority)));
  singleton(ListKoboDevices, (p) => new ListKoboDevices(p.KoboDeviceRepository));
  singleton(RevokeKoboDevice, (p, c) => new RevokeKoboDevice(p.KoboDeviceRepository, c.resolve(Authority)));
  singleton(AuthenticateKoboDevice, (p, c) => new AuthenticateKoboDevice(p.KoboDeviceRepository, p.UserRepository, p.SecretGenerator,
    p.LoginThrottleRepository, p.Clock, { address: loginPolicies.address, device: loginPolicies.account }, c.resolve(AuthEvents)));
  singleton(SyncKoboLibrary, (p) => new SyncKoboLibrary(p.ChangeFeedRepository, p.BookRepository, p.ShelfRepository, p.ProgressRepository,
    p.KoboDeviceRepository, p.Clock, KOBO_SYNC_PAGE_SIZE));
  singleton(ArchiveKoboBook, (p, c) => new ArchiveKoboBook(p.BookRepository, p.ShelfRepository, p.KoboDeviceRepository, c.resolve(Authority)));
  singleton(EditKoboTags, (p, c) => new EditKoboTags(p.ShelfRepository, c.resolve(CreateShelf), c.resolve(UpdateShelf), c.resolve(DeleteShelf),
    c.resolve(AddBookToShelf), c.resolve(RemoveBookFromShelf)));
  singleton(GetKoboBook, (p) => new GetKoboBook(p.BookRepository, p.ShelfRepository));
  singleton(GetKoboBookFile, (p) => new GetKoboBookFile(p.BookRepository, p.ShelfRepository, p.BlobStore, p.UploadStaging, p.KepubConverter, p.Logger));
  singleton(GetKoboCover, (p) => new GetKoboCover(p.BookRepository, p.ShelfRepository, p.BlobStore, p.CoverResizer));
  singleton(BackfillChangeFeed, (p) => new BackfillChangeFeed(p.ChangeFeedRepository, p.BookRepository, p.Clock));

  singleton(ListShelves, (p) => new ListShelves(p.ShelfRepository));
  singleton(CreateShelf, (p, c) => new CreateShelf(p.ShelfRepository, p.BookRepository, p.Clock, p.IdGenerator, c.resolve(Authority)));
  singleton(GetShelf, (p) => new GetShelf(p.ShelfRepository));
  singleton(UpdateShelf, (p, c) => new UpdateShelf(p.ShelfRepository, p.BookRepository, p.Clock, c.resolve(Authority)));
  singleton(DeleteShelf, (p, c) => new DeleteShelf(p.ShelfRepository, c.resolve(Authority)));
  singleton(ListShelfBooks, (p) => new ListShelfBooks(p.ShelfRepository, p.BookRepository));
  singleton(AddBookToShelf, (p, c) => new AddBookToShelf(p.ShelfRepository, p.BookRepository, p.Clock, c.resolve(Authority)));
  singleton(RemoveBookFromShelf, (p, c) => new RemoveBookFromShelf(p.ShelfRepository, p.Clock, c.resolve(Authority)));

  const oidc = config.oidc;
  if (!oidc) return;
  const flow = {
    redirectUri: `${config.publicUrl}/api/auth/oidc/callback`,
    allowedOrigins: [new URL(config.publicUrl).origin, ...config.corsOrigins],
    stateTtlMs: OIDC_STATE_TTL_MS,
  };
  const roles = { defaultRole: config.defaultRole, roleMap: oidc.rolesClaim ? oidc.roleMap : null };
  singleton(OidcAccounts, (p) => new OidcAccounts(p.UserRepository, p.Clock, p.IdGenerator, roles));
  singleton(OidcAttemptLimiter, (p) => new OidcAttemptLimiter(p.LoginThrottleRepository, p.Clock, OIDC_ATTEMPT_POLICY));
  singleton(StartOidcLogin, (p, c) =>
    new StartOidcLogin(p.OidcProvider, p.OneTimeCodeRepository, p.SecretGenerator, p.Clock, c.resolve(OidcAttemptLimiter), flow));
  singleton(CompleteOidcLogin, (p, c) => new CompleteOidcLogin(
    p.OidcProvider, c.resolve(OidcAccounts), p.OneTimeCodeRepository, p.SecretGenerator, p.TokenService, p.Clock, c.resolve(OidcAttemptLimiter), flow));
  singleton(StartOidcLink, (_p, c) => new StartOidcLink(c.resolve(Authority), c.resolve(CurrentPasswordCheck), c.resolve(StartOidcLogin)));
  singleton(ExchangeOidcCode, (p) => new ExchangeOidcCode(p.OneTimeCodeRepository, p.UserRepository, p.SecretGenerator, p.TokenService, p.Clock));
}
