import { apiKeyRoutes } from '../adapters/http/api-keys.routes.js';
import type { HttpDeps } from '../adapters/http/app.js';
import { bookRoutes } from '../adapters/http/books.routes.js';
import { healthRoutes } from '../adapters/http/health.routes.js';
import { causeOf, knownErrorOf, setRetryAfter, statusOf } from '../adapters/http/error-handler.js';
import { internalError, malformedJson, methodNotAllowed, routeNotFound, unsupportedMediaType } from '../adapters/http/http-errors.js';
import { identityRoutes } from '../adapters/http/identity.routes.js';
import { loadedOnFirstRequest } from '../adapters/http/loaded-on-first-request.js';
import { koboDeviceRoutes } from '../adapters/http/kobo-devices.routes.js';
import { kosyncRouter } from '../adapters/kosync/kosync-router.js';
import { kosyncErrors, type KosyncTransport } from '../adapters/kosync/kosync-responses.js';
import { koboRouter } from '../adapters/kobo/kobo-router.js';
import { KoboStore } from '../adapters/kobo/kobo-store.js';
import { KoboSyncTokens } from '../adapters/kobo/kobo-sync-token.js';
import { OidcStateCookie } from '../adapters/http/oidc-state-cookie.js';
import { oidcRoutes } from '../adapters/http/oidc.routes.js';
import { progressRoutes } from '../adapters/http/progress.routes.js';
import { shelfRoutes } from '../adapters/http/shelves.routes.js';
import { userRoutes } from '../adapters/http/users.routes.js';
import {
  AddBookToShelf, ArchiveKoboBook, AuthenticateKoboDevice, CreateKoboDevice, GetKoboBook, GetKoboBookFile, GetKoboCover, ListKoboDevices, RevokeKoboDevice,
  EditKoboTags, SyncKoboLibrary, Authenticate, AuthenticateSyncUser, ChangePassword, CompleteOidcLogin, CreateApiKey,
  CreateShelf, DeleteBook, DeleteProgress, DeleteShelf, DeleteUser, ExchangeOidcCode, GetBook, GetBookCover, GetBookFile,
  GetProgress, GetShelf, GetUser, ListApiKeys, ListBooks, ListRoles, ListShelfBooks, ListShelves, ListUsers,
  LoginUser, Logout, PullSyncProgress, PushSyncProgress, RegisterUser, RemoveBookFromShelf, RevokeApiKey, StartOidcLink,
  StartOidcLogin, UnlinkOidc, UnlinkUserOidc, UnlockUser, UpdateBook, UpdateProgress, UpdateShelf, UpdateUser, UploadBook,
} from '../index.js';
import type { StacksContainer } from './container.js';
import { baseUrlOf } from './public-base.js';
import { portsOf } from './tokens.js';

/** What KOReader sync takes from the HTTP transport: its reading of errors (the one status table) and its own codes. */
const kosyncTransport: KosyncTransport = {
  knownErrorOf, statusOf, setRetryAfter, causeOf, internalError, malformedJson, unsupportedMediaType, routeNotFound, methodNotAllowed,
};

/** Every route and the OPDS catalog, each over the use cases registered under their class. */
export function httpDepsFrom({ di, rateCounter, koboTokenKey }: StacksContainer): HttpDeps {
  const { Config: config, Logger: logger, HealthCheck: health, Clock: clock } = portsOf(di);
  const oidcFlow = config.oidc
    ? {
      start: di.resolve(StartOidcLogin), complete: di.resolve(CompleteOidcLogin), exchange: di.resolve(ExchangeOidcCode),
      link: di.resolve(StartOidcLink), cookie: di.resolve(OidcStateCookie),
    }
    : null;
  const publicBase = baseUrlOf(config);
  const rateLimits = config.rateLimits && { ...config.rateLimits, shared: rateCounter ?? undefined }; // shared by every instance on MongoDB
  const authConfig = {
    registration_enabled: config.registrationOpen && config.localLogin,
    local_login_enabled: config.localLogin,
    oidc_enabled: config.oidc !== null,
  };
  return {
    logger,
    settings: {
      publicUrl: config.publicUrl, corsOrigins: config.corsOrigins, trustProxy: config.trustProxy, rateLimits,
      maxConnectionsPerAddress: config.maxConnectionsPerAddress,
    },
    authenticate: di.resolve(Authenticate),
    routes: [
      ...healthRoutes(health),
      ...identityRoutes({
        register: di.resolve(RegisterUser), login: di.resolve(LoginUser), logout: di.resolve(Logout), changePassword: di.resolve(ChangePassword), authConfig, logger,
      }),
      ...apiKeyRoutes({ create: di.resolve(CreateApiKey), list: di.resolve(ListApiKeys), revoke: di.resolve(RevokeApiKey) }),
      ...koboDeviceRoutes({ create: di.resolve(CreateKoboDevice), list: di.resolve(ListKoboDevices), revoke: di.resolve(RevokeKoboDevice), baseUrlOf: publicBase }),
      ...userRoutes({
        list: di.resolve(ListUsers), get: di.resolve(GetUser), update: di.resolve(UpdateUser), remove: di.resolve(DeleteUser), roles: di.resolve(ListRoles),
        unlock: di.resolve(UnlockUser), unlinkSso: di.resolve(UnlinkUserOidc),
      }),
      ...bookRoutes({
        upload: di.resolve(UploadBook), list: di.resolve(ListBooks), get: di.resolve(GetBook), update: di.resolve(UpdateBook), remove: di.resolve(DeleteBook),
        file: di.resolve(GetBookFile), cover: di.resolve(GetBookCover), maxUploadBytes: config.maxUploadBytes,
      }),
      ...progressRoutes({ get: di.resolve(GetProgress), update: di.resolve(UpdateProgress), remove: di.resolve(DeleteProgress) }),
      ...shelfRoutes({
        list: di.resolve(ListShelves), create: di.resolve(CreateShelf), get: di.resolve(GetShelf), update: di.resolve(UpdateShelf), remove: di.resolve(DeleteShelf),
        listBooks: di.resolve(ListShelfBooks), addBook: di.resolve(AddBookToShelf), removeBook: di.resolve(RemoveBookFromShelf),
      }),
      // Without OIDC_ISSUER the four sign-in and link paths answer 404 `oidc_disabled` and stay documented; unlinking still works.
      ...oidcRoutes({ flow: oidcFlow, unlink: di.resolve(UnlinkOidc), logger }),
    ],
    // The OPDS catalog's modules load at its first request.
    extraRouters: [{ path: '/opds', router: loadedOnFirstRequest(async () => (await import('../adapters/opds/opds-router.js')).opdsRouter({
      login: di.resolve(LoginUser), authenticate: di.resolve(Authenticate), 
      baseUrlOf: publicBase,
      listBooks: di.resolve(ListBooks), getBook: di.resolve(GetBook), file: di.resolve(GetBookFile), cover: di.resolve(GetBookCover),
      listShelves: di.resolve(ListShelves), getShelf: di.resolve(GetShelf), listShelfBooks: di.resolve(ListShelfBooks),
    })), checksSecrets: true }, {
      path: '/kosync',
      router: kosyncRouter({ authenticate: di.resolve(AuthenticateSyncUser), push: di.resolve(PushSyncProgress), pull: di.resolve(PullSyncProgress), logger, transport: kosyncTransport }),
      errors: kosyncErrors(logger, kosyncTransport),
      answersEverything: true,
      checksSecrets: true,
    }, {
      path: '/kobo',
      router: koboRouter({
        authenticate: di.resolve(AuthenticateKoboDevice), sync: di.resolve(SyncKoboLibrary), tokens: new KoboSyncTokens(koboTokenKey),
        book: di.resolve(GetKoboBook), getProgress: di.resolve(GetProgress), updateProgress: di.resolve(UpdateProgress), archive: di.resolve(ArchiveKoboBook),
        file: di.resolve(GetKoboBookFile), cover: di.resolve(GetKoboCover), tags: di.resolve(EditKoboTags),
        store: config.kobo.storeForwarding ? new KoboStore(config.kobo.storeUrl) : null, clock, baseUrlOf: publicBase,
      }),
      checksSecrets: true,
    }],
  };
}
