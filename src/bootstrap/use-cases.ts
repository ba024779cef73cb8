import { instanceCachingFactory, type DependencyContainer, type InjectionToken } from 'tsyringe';
import {
  AddBookToShelf, ArchiveKoboBook, Authenticate, AuthenticateKoboDevice, BackfillChangeFeed, CreateKoboDevice, GetKoboBookFile, GetKoboCover,
  ListKoboDevices, RevokeKoboDevice, SaveKoboTag, SyncKoboLibrary, AuthenticateApiKey, AuthenticateSyncUser, BackfillBookDigests, BootstrapAdmin, ChangePassword,
  CompleteOidcLogin, CreateApiKey, CreateShelf, CreateUser, DeleteBook, DeleteProgress, DeleteShelf, DeleteUser, ExchangeOidcCode,
  FindUserByUsername, GetBook, GetBookCover, GetBookFile, GetProgress, GetShelf, GetUser, ListApiKeys, ListBooks, ListRoles,
  ListShelfBooks, ListShelves, ListUsers, type LoginPolicies, LoginUser, Logout, OIDC_ATTEMPT_POLICY, OidcAccounts,
  OidcAttemptLimiter, PullSyncProgress, PurgeExpiredRecords, PushSyncProgress, ReconcileBookStorage, RegisterUser,
  RemoveBookFromShelf, ResetPassword, RevokeApiKey, RunHousekeeping, StartOidcLink, StartOidcLogin, UpdateBook, UpdateProgress,
  UpdateShelf, UpdateUser, UploadBook,
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
  singleton(LoginUser, (p) =>
    new LoginUser(p.UserRepository, p.PasswordHasher, p.TokenService, p.LoginThrottleRepository, p.Clock, loginPolicies, config.localLogin));
  singleton(AuthenticateApiKey, (p) =>
    new AuthenticateApiKey(p.ApiKeyRepository, p.UserRepository, p.SecretGenerator, p.LoginThrottleRepository, p.Clock, loginPolicies.address));
  singleton(Authenticate, (p, c) => new Authenticate(p.TokenService, p.TokenRevocationRepository, p.UserRepository, c.resolve(AuthenticateApiKey)));
  singleton(CreateApiKey, (p) => new CreateApiKey(p.ApiKeyRepository, p.UserRepository, p.SecretGenerator, p.Clock, p.IdGenerator));
  singleton(ListApiKeys, (p) => new ListApiKeys(p.ApiKeyRepository, p.UserRepository));
  singleton(RevokeApiKey, (p) => new RevokeApiKey(p.ApiKeyRepository, p.UserRepository));
  singleton(Logout, (p) => new Logout(p.TokenRevocationRepository));
  singleton(ChangePassword, (p) => new ChangePassword(p.UserRepository, p.PasswordHasher, p.Clock, p.LoginThrottleRepository, loginPolicies.account));
  singleton(BootstrapAdmin, (p) => new BootstrapAdmin(p.UserRepository, p.PasswordHasher, p.Clock, p.IdGenerator));
  singleton(CreateUser, (p) => new CreateUser(p.UserRepository, p.PasswordHasher, p.Clock, p.IdGenerator));
  singleton(ResetPassword, (p) => new ResetPassword(p.UserRepository, p.PasswordHasher, p.Clock));
  singleton(FindUserByUsername, (p) => new FindUserByUsername(p.UserRepository));
  singleton(ListUsers, (p) => new ListUsers(p.UserRepository));
  singleton(GetUser, (p) => new GetUser(p.UserRepository));
  singleton(UpdateUser, (p) => new UpdateUser(p.UserRepository, p.Clock));
  singleton(DeleteUser, (p) => new DeleteUser(p.UserRepository, p.ProgressRepository, p.ApiKeyRepository, p.SyncDocumentRepository, p.KoboDeviceRepository));
  singleton(ListRoles, () => new ListRoles());

  singleton(UploadBook, (p) =>
    new UploadBook(p.BookRepository, p.UploadStaging, p.BlobStore, p.MetadataReader, p.Clock, p.IdGenerator, config.maxUploadBytes, p.BookDigestRepository, p.SecretGenerator));
  singleton(ListBooks, (p) => new ListBooks(p.BookRepository));
  singleton(GetBook, (p) => new GetBook(p.BookRepository));
  singleton(UpdateBook, (p) => new UpdateBook(p.BookRepository, p.Clock));
  singleton(DeleteBook, (p) => new DeleteBook(p.BookRepository, p.ShelfRepository, p.BlobStore, p.Clock, p.ProgressRepository, p.BookDigestRepository));
  singleton(GetBookFile, (p) => new GetBookFile(p.BookRepository, p.BlobStore));
  singleton(GetBookCover, (p) => new GetBookCover(p.BookRepository, p.BlobStore));
  singleton(GetProgress, (p) => new GetProgress(p.BookRepository, p.ProgressRepository));
  singleton(UpdateProgress, (p) => new UpdateProgress(p.BookRepository, p.ProgressRepository, p.Clock));
  singleton(DeleteProgress, (p) => new DeleteProgress(p.BookRepository, p.ProgressRepository));
  singleton(AuthenticateSyncUser, (p, c) =>
    new AuthenticateSyncUser(p.UserRepository, c.resolve(AuthenticateApiKey), p.LoginThrottleRepository, p.Clock, loginPolicies.account));
  singleton(PushSyncProgress, (p, c) => new PushSyncProgress(p.BookDigestRepository, c.resolve(UpdateProgress), p.SyncDocumentRepository, p.Clock));
  singleton(PullSyncProgress, (p) => new PullSyncProgress(p.BookDigestRepository, p.ProgressRepository, p.SyncDocumentRepository));
  singleton(ReconcileBookStorage, (p) => new ReconcileBookStorage(p.BookRepository, p.UploadStaging, p.BlobStore, p.Clock));
  singleton(BackfillBookDigests, (p) => new BackfillBookDigests(p.BookRepository, p.BookDigestRepository, p.BlobStore, p.SecretGenerator));
  singleton(PurgeExpiredRecords, (p) => new PurgeExpiredRecords(p.TokenRevocationRepository, p.OneTimeCodeRepository, p.Clock));
  singleton(RunHousekeeping, (p, c) => new RunHousekeeping(p.HousekeepingLeases, p.Clock, p.Logger, [
    ...p.StoreHousekeeping,
    { name: 'expired records purged', run: () => c.resolve(PurgeExpiredRecords).execute() },
    { name: 'upload temp files cleared', everyInstance: true, run: () => c.resolve(ReconcileBookStorage).clearTempFiles() },
    { name: 'book storage reconciled', run: () => c.resolve(ReconcileBookStorage).execute() },
    { name: 'KOReader digests backfilled', run: () => c.resolve(BackfillBookDigests).execute() },
    { name: 'change feed reconciled', run: () => c.resolve(BackfillChangeFeed).execute() },
  ]));

  singleton(CreateKoboDevice, (p) => new CreateKoboDevice(p.KoboDeviceRepository, p.UserRepository, p.ShelfRepository, p.SecretGenerator, p.Clock, p.IdGenerator));
  singleton(ListKoboDevices, (p) => new ListKoboDevices(p.KoboDeviceRepository));
  singleton(RevokeKoboDevice, (p) => new RevokeKoboDevice(p.KoboDeviceRepository));
  singleton(AuthenticateKoboDevice, (p) => new AuthenticateKoboDevice(p.KoboDeviceRepository, p.UserRepository, p.SecretGenerator,
    p.LoginThrottleRepository, p.Clock, { address: loginPolicies.address, device: loginPolicies.account }));
  singleton(SyncKoboLibrary, (p) => new SyncKoboLibrary(p.ChangeFeedRepository, p.BookRepository, p.ShelfRepository, p.ProgressRepository,
    p.KoboDeviceRepository, p.Clock, KOBO_SYNC_PAGE_SIZE));
  singleton(ArchiveKoboBook, (p) => new ArchiveKoboBook(p.BookRepository, p.KoboDeviceRepository));
  singleton(SaveKoboTag, (p, c) => new SaveKoboTag(p.ShelfRepository, c.resolve(CreateShelf), c.resolve(AddBookToShelf)));
  singleton(GetKoboBookFile, (p) => new GetKoboBookFile(p.BookRepository, p.BlobStore, p.UploadStaging, p.KepubConverter, p.Logger));
  singleton(GetKoboCover, (p) => new GetKoboCover(p.BookRepository, p.BlobStore, p.CoverResizer));
  singleton(BackfillChangeFeed, (p) => new BackfillChangeFeed(p.ChangeFeedRepository, p.BookRepository, p.Clock));

  singleton(ListShelves, (p) => new ListShelves(p.ShelfRepository));
  singleton(CreateShelf, (p) => new CreateShelf(p.ShelfRepository, p.BookRepository, p.Clock, p.IdGenerator));
  singleton(GetShelf, (p) => new GetShelf(p.ShelfRepository));
  singleton(UpdateShelf, (p) => new UpdateShelf(p.ShelfRepository, p.BookRepository, p.Clock));
  singleton(DeleteShelf, (p) => new DeleteShelf(p.ShelfRepository));
  singleton(ListShelfBooks, (p) => new ListShelfBooks(p.ShelfRepository, p.BookRepository));
  singleton(AddBookToShelf, (p) => new AddBookToShelf(p.ShelfRepository, p.BookRepository, p.Clock));
  singleton(RemoveBookFromShelf, (p) => new RemoveBookFromShelf(p.ShelfRepository, p.Clock));

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
  singleton(StartOidcLink, (p, c) => new StartOidcLink(p.UserRepository, c.resolve(StartOidcLogin)));
  singleton(ExchangeOidcCode, (p) => new ExchangeOidcCode(p.OneTimeCodeRepository, p.UserRepository, p.SecretGenerator, p.TokenService, p.Clock));
}
