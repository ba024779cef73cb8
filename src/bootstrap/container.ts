import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { container as rootContainer, instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import type { Clock, IdGenerator, PasswordHasher, TokenService } from '../application/ports.js';
import { Authenticate } from '../application/use-cases/authenticate.js';
import { BootstrapAdmin } from '../application/use-cases/bootstrap-admin.js';
import { ChangePassword } from '../application/use-cases/change-password.js';
import { ListRoles } from '../application/use-cases/list-roles.js';
import { LoginUser, type LoginPolicies } from '../application/use-cases/login-user.js';
import { Logout } from '../application/use-cases/logout.js';
import { DeleteUser } from '../application/use-cases/delete-user.js';
import { GetUser } from '../application/use-cases/get-user.js';
import { ListUsers } from '../application/use-cases/list-users.js';
import { UpdateUser } from '../application/use-cases/update-user.js';
import { RegisterUser } from '../application/use-cases/register-user.js';
import { BcryptPasswordHasher } from '../adapters/identity/bcrypt-password-hasher.js';
import { loadOrCreateJwtSecret } from '../adapters/identity/jwt-secret.js';
import { JwtTokenService } from '../adapters/identity/jwt-token-service.js';
import { RandomIdGenerator } from '../adapters/identity/random-id-generator.js';
import { SystemClock } from '../adapters/identity/system-clock.js';
import { registerBooks } from './books-module.js';
import type { Config } from './config.js';
import { registerOidc } from './oidc-module.js';
import { openStores, type Stores } from './stores.js';
import { registerShelves } from './shelves-module.js';
import { TOKENS as T } from './tokens.js';

const MINUTE = 60_000;

/** Login throttling: 10 failures per account in 15 min, 100 per address in a day; growing blocks. */
export const DEFAULT_LOGIN_POLICIES: LoginPolicies = {
  account: { maxFailures: 10, windowMs: 15 * MINUTE, blockMs: 5 * MINUTE, maxBlockMs: 60 * MINUTE },
  address: { maxFailures: 100, windowMs: 24 * 60 * MINUTE, blockMs: 15 * MINUTE, maxBlockMs: 24 * 60 * MINUTE },
};

/** Test seams: a fixed clock and small throttling limits. */
export interface ContainerOverrides {
  readonly clock?: Clock;
  readonly loginPolicies?: LoginPolicies;
}

export interface StacksContainer {
  readonly di: DependencyContainer;
  dispose(): Promise<void>;
}

/** The composition root: one child container per running service. */
export async function buildContainer(config: Config, logger: Logger, overrides: ContainerOverrides = {}): Promise<StacksContainer> {
  const di = rootContainer.createChildContainer();
  const stores = await openStores(config.store);
  const hasher = new BcryptPasswordHasher({ cost: config.bcryptCost });
  const secret = jwtSecret(config, logger);

  di.registerInstance(T.Config, config);
  di.registerInstance(T.Logger, logger);
  di.registerInstance(T.Clock, overrides.clock ?? new SystemClock());
  di.registerInstance(T.Ids, new RandomIdGenerator());
  di.registerInstance(T.Stores, stores);
  di.registerInstance(T.UserRepository, stores.users);
  di.registerInstance(T.TokenRevocationRepository, stores.revocations);
  di.registerInstance(T.LoginThrottleRepository, stores.throttle);
  di.registerInstance(T.BookRepository, stores.books);
  di.registerInstance(T.ShelfRepository, stores.shelves);
  di.registerInstance(T.HealthCheck, stores.health);
  di.registerInstance(T.PasswordHasher, hasher);
  singleton(di, T.TokenService, (c) =>
    new JwtTokenService({ secret, expiresInSeconds: config.jwtExpiresInSeconds, clock: c.resolve(T.Clock), ids: c.resolve(T.Ids) }));

  registerIdentityUseCases(di, config, overrides.loginPolicies ?? DEFAULT_LOGIN_POLICIES);
  registerShelves(di);
  const books = await registerBooks(di, config);
  registerOidc(di, config, secret);

  return {
    di,
    dispose: async () => {
      await books.dispose();
      await hasher.close();
      await stores.close();
      di.clearInstances();
    },
  };
}

function registerIdentityUseCases(di: DependencyContainer, config: Config, policies: LoginPolicies): void {
  const users = (c: DependencyContainer) => c.resolve<Stores>(T.Stores).users;
  const hasher = (c: DependencyContainer) => c.resolve<PasswordHasher>(T.PasswordHasher);
  const tokens = (c: DependencyContainer) => c.resolve<TokenService>(T.TokenService);
  const clock = (c: DependencyContainer) => c.resolve<Clock>(T.Clock);
  const ids = (c: DependencyContainer) => c.resolve<IdGenerator>(T.Ids);
  const stores = (c: DependencyContainer) => c.resolve<Stores>(T.Stores);

  singleton(di, T.RegisterUser, (c) =>
    new RegisterUser(users(c), hasher(c), tokens(c), clock(c), ids(c), {
      registrationOpen: config.registrationOpen,
      localLogin: config.localLogin,
      defaultRole: config.defaultRole,
      firstUserBecomesAdmin: config.admin === null,
    }));
  singleton(di, T.LoginUser, (c) => new LoginUser(users(c), hasher(c), tokens(c), stores(c).throttle, clock(c), policies, config.localLogin));
  singleton(di, T.Authenticate, (c) => new Authenticate(tokens(c), stores(c).revocations, users(c)));
  singleton(di, T.Logout, (c) => new Logout(stores(c).revocations));
  singleton(di, T.ChangePassword, (c) => new ChangePassword(users(c), hasher(c), clock(c)));
  singleton(di, T.ListUsers, (c) => new ListUsers(users(c)));
  singleton(di, T.GetUser, (c) => new GetUser(users(c)));
  singleton(di, T.UpdateUser, (c) => new UpdateUser(users(c), clock(c)));
  singleton(di, T.DeleteUser, (c) => new DeleteUser(users(c)));
  singleton(di, T.ListRoles, () => new ListRoles());
  singleton(di, T.BootstrapAdmin, (c) => new BootstrapAdmin(users(c), hasher(c), clock(c), ids(c)));
}

function singleton<T>(di: DependencyContainer, token: symbol, factory: (c: DependencyContainer) => T): void {
  di.register<T>(token, { useFactory: instanceCachingFactory<T>(factory) });
}

function jwtSecret(config: Config, logger: Logger): string {
  if (config.jwtSecret) return config.jwtSecret;
  if (config.store.kind === 'memory') return randomBytes(48).toString('base64url');
  const { secret, generated, insecureMode } = loadOrCreateJwtSecret(config.dataDir, undefined);
  if (generated) logger.warn({ file: 'DATA_DIR/jwt-secret' }, 'JWT_SECRET is not set: generated one and kept it in DATA_DIR');
  if (insecureMode) logger.warn({ file: 'DATA_DIR/jwt-secret' }, 'the JWT secret file is readable by others: chmod 600 it');
  return secret;
}
