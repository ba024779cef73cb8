import type { Logger } from 'pino';
import type { DependencyContainer } from 'tsyringe';
import type * as P from '../application/ports.js';
import type { Config } from './config.js';

/** A DI token that names the type registered under it. */
type Token<T> = symbol & { readonly registers?: T };
const token = <T>(name: string): Token<T> => Symbol(name);

/** The one DI token table: a token per port, and the config and logger the edge reads. Use cases are their own token (their class). */
export const PORTS = Object.freeze({
  Config: token<Config>('Config'),
  Logger: token<Logger>('Logger'),
  Clock: token<P.Clock>('Clock'),
  IdGenerator: token<P.IdGenerator>('IdGenerator'),
  UserRepository: token<P.UserRepository>('UserRepository'),
  TokenRevocationRepository: token<P.TokenRevocationRepository>('TokenRevocationRepository'),
  LoginThrottleRepository: token<P.LoginThrottleRepository>('LoginThrottleRepository'),
  BookRepository: token<P.BookRepository>('BookRepository'),
  ShelfRepository: token<P.ShelfRepository>('ShelfRepository'),
  ProgressRepository: token<P.ProgressRepository>('ProgressRepository'),
  BookDigestRepository: token<P.BookDigestRepository>('BookDigestRepository'),
  SyncDocumentRepository: token<P.SyncDocumentRepository>('SyncDocumentRepository'),
  OneTimeCodeRepository: token<P.OneTimeCodeRepository>('OneTimeCodeRepository'),
  ApiKeyRepository: token<P.ApiKeyRepository>('ApiKeyRepository'),
  KnownAddressRepository: token<P.KnownAddressRepository>('KnownAddressRepository'),
  KoboDeviceRepository: token<P.KoboDeviceRepository>('KoboDeviceRepository'),
  ChangeFeedRepository: token<P.ChangeFeedRepository>('ChangeFeedRepository'),
  KepubConverter: token<P.KepubConverter>('KepubConverter'),
  CoverResizer: token<P.CoverResizer>('CoverResizer'),
  HealthCheck: token<P.HealthCheck>('HealthCheck'),
  PasswordHasher: token<P.PasswordHasher>('PasswordHasher'),
  TokenService: token<P.TokenService>('TokenService'),
  UploadStaging: token<P.UploadStaging>('UploadStaging'),
  BlobStore: token<P.BlobStore>('BlobStore'),
  MetadataReader: token<P.MetadataReader>('MetadataReader'),
  SecretGenerator: token<P.SecretGenerator>('SecretGenerator'),
  HousekeepingLeases: token<P.HousekeepingLeases>('HousekeepingLeases'),
  /** The store's own housekeeping steps (MongoDB: the search-gram backfill, the orphan-chunk sweep); none elsewhere. */
  StoreHousekeeping: token<readonly P.HousekeepingStep[]>('StoreHousekeeping'),
  /** Registered only when single sign-on is configured. */
  OidcProvider: token<P.OidcProvider>('OidcProvider'),
});

/** What is registered under each token of PORTS. */
export type Ports = { readonly [K in keyof typeof PORTS]: (typeof PORTS)[K] extends Token<infer T> ? T : never };

/** One view per container: every use-case factory asks for it, and its getters resolve at each read anyway. */
const views = new WeakMap<DependencyContainer, Ports>();

/** Typed, lazy access to the registered ports: `portsOf(di).Clock` resolves `PORTS.Clock` (at each read). */
export function portsOf(di: DependencyContainer): Ports {
  let view = views.get(di);
  if (!view) {
    const getters = Object.entries(PORTS).map(([name, port]) => [name, { get: () => di.resolve(port), enumerable: true }]);
    view = Object.defineProperties({}, Object.fromEntries(getters)) as Ports;
    views.set(di, view);
  }
  return view;
}
