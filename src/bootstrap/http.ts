import type { Logger } from 'pino';
import type { HttpDeps } from '../adapters/http/app.js';
import { healthRoutes } from '../adapters/http/health.routes.js';
import { identityRoutes } from '../adapters/http/identity.routes.js';
import { userRoutes } from '../adapters/http/users.routes.js';
import { bookRoutesFrom } from './books-module.js';
import type { StacksContainer } from './container.js';
import type { Config } from './config.js';
import { oidcRoutesFrom } from './oidc-module.js';
import { opdsRoutersFrom } from './opds-module.js';
import { shelfRoutesFrom } from './shelves-module.js';
import { TOKENS as T } from './tokens.js';

/** Assembles the HTTP adapter's dependencies from the container. */
export function httpDepsFrom({ di }: StacksContainer): HttpDeps {
  const config = di.resolve<Config>(T.Config);
  const logger = di.resolve<Logger>(T.Logger);
  return {
    logger,
    settings: { publicUrl: config.publicUrl, corsOrigins: config.corsOrigins, trustProxy: config.trustProxy, rateLimits: config.rateLimits },
    authenticate: di.resolve(T.Authenticate),
    routes: [
      ...healthRoutes(di.resolve(T.HealthCheck)),
      ...identityRoutes({
        register: di.resolve(T.RegisterUser),
        login: di.resolve(T.LoginUser),
        logout: di.resolve(T.Logout),
        changePassword: di.resolve(T.ChangePassword),
        authConfig: {
          registration_enabled: config.registrationOpen && config.localLogin,
          local_login_enabled: config.localLogin,
          oidc_enabled: config.oidc !== null,
        },
        logger,
      }),
      ...userRoutes({
        list: di.resolve(T.ListUsers),
        get: di.resolve(T.GetUser),
        update: di.resolve(T.UpdateUser),
        remove: di.resolve(T.DeleteUser),
        roles: di.resolve(T.ListRoles),
      }),
      ...bookRoutesFrom(di),
      ...shelfRoutesFrom(di),
      ...oidcRoutesFrom(di),
    ],
    extraRouters: opdsRoutersFrom(di),
  };
}
