import type { Logger } from 'pino';
import { instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import type { Clock, IdGenerator, OidcProvider, SecretGenerator, TokenService } from '../application/ports.js';
import type { ThrottlePolicy } from '../domain/login-throttle.js';
import { CompleteOidcLogin } from '../application/use-cases/complete-oidc-login.js';
import { ExchangeOidcCode } from '../application/use-cases/exchange-oidc-code.js';
import { OidcAccounts } from '../application/use-cases/oidc-accounts.js';
import { OidcAttemptLimiter } from '../application/use-cases/oidc-attempt-limiter.js';
import { StartOidcLogin, type OidcFlowSettings } from '../application/use-cases/start-oidc-login.js';
import { oidcRoutes } from '../adapters/http/oidc.routes.js';
import { OidcStateCookie } from '../adapters/http/oidc-state-cookie.js';
import type { AnyRoute } from '../adapters/http/route.js';
import { CryptoSecretGenerator } from '../adapters/identity/crypto-secret-generator.js';
import { OpenIdClientProvider } from '../adapters/identity/openid-client-provider.js';
import type { Config } from './config.js';
import type { Stores } from './stores.js';
import { TOKENS as T } from './tokens.js';

/** DI tokens of the single sign-on module. */
export const OIDC_TOKENS = {
  Provider: Symbol('OidcProvider'),
  Secrets: Symbol('SecretGenerator'),
  Accounts: Symbol('OidcAccounts'),
  Limiter: Symbol('OidcAttemptLimiter'),
  StateCookie: Symbol('OidcStateCookie'),
  StartOidcLogin: Symbol('StartOidcLogin'),
  CompleteOidcLogin: Symbol('CompleteOidcLogin'),
  ExchangeOidcCode: Symbol('ExchangeOidcCode'),
} as const;
const O = OIDC_TOKENS;

const STATE_TTL_MS = 10 * 60_000;
const MINUTE = 60_000;

/** SSO starts and callbacks per client address: 150 in 15 minutes, then a block of 5 minutes growing to an hour. */
export const OIDC_ATTEMPT_POLICY: ThrottlePolicy = { maxFailures: 150, windowMs: 15 * MINUTE, blockMs: 5 * MINUTE, maxBlockMs: 60 * MINUTE };

function singleton<V>(di: DependencyContainer, token: symbol, factory: (c: DependencyContainer) => V): void {
  di.register<V>(token, { useFactory: instanceCachingFactory<V>(factory) });
}

/** Registers the OIDC adapters and use cases; nothing but the secret generator when SSO is off. */
export function registerOidc(di: DependencyContainer, config: Config, jwtSecret: string): void {
  di.registerInstance<SecretGenerator>(O.Secrets, new CryptoSecretGenerator());
  const oidc = config.oidc;
  if (!oidc) return;
  const codes = (c: DependencyContainer) => c.resolve<Stores>(T.Stores).oneTimeCodes;
  const secrets = (c: DependencyContainer) => c.resolve<SecretGenerator>(O.Secrets);
  const tokens = (c: DependencyContainer) => c.resolve<TokenService>(T.TokenService);
  const clock = (c: DependencyContainer) => c.resolve<Clock>(T.Clock);
  const provider = (c: DependencyContainer) => c.resolve<OidcProvider>(O.Provider);
  const flow: OidcFlowSettings = {
    redirectUri: `${config.publicUrl}/api/auth/oidc/callback`,
    allowedOrigins: [new URL(config.publicUrl).origin, ...config.corsOrigins],
    stateTtlMs: STATE_TTL_MS,
  };

  singleton(di, O.Provider, () => new OpenIdClientProvider(oidc));
  singleton(di, O.StateCookie, () => new OidcStateCookie({ secret: jwtSecret, secure: config.publicUrl.startsWith('https:') }));
  singleton(di, O.Accounts, (c) =>
    new OidcAccounts(c.resolve<Stores>(T.Stores).users, clock(c), c.resolve<IdGenerator>(T.Ids), {
      defaultRole: config.defaultRole,
      roleMap: oidc.rolesClaim ? oidc.roleMap : null,
    }));
  singleton(di, O.Limiter, (c) => new OidcAttemptLimiter(c.resolve<Stores>(T.Stores).throttle, clock(c), OIDC_ATTEMPT_POLICY));
  const limiter = (c: DependencyContainer) => c.resolve<OidcAttemptLimiter>(O.Limiter);
  singleton(di, O.StartOidcLogin, (c) => new StartOidcLogin(provider(c), codes(c), secrets(c), clock(c), limiter(c), flow));
  singleton(di, O.CompleteOidcLogin, (c) =>
    new CompleteOidcLogin(provider(c), c.resolve(O.Accounts), codes(c), secrets(c), tokens(c), clock(c), limiter(c), flow));
  singleton(di, O.ExchangeOidcCode, (c) =>
    new ExchangeOidcCode(codes(c), c.resolve<Stores>(T.Stores).users, secrets(c), tokens(c), clock(c)));
}

/** The three OIDC routes; without OIDC_ISSUER they answer 404 `oidc_disabled` (and stay documented). */
export function oidcRoutesFrom(di: DependencyContainer): AnyRoute[] {
  const config = di.resolve<Config>(T.Config);
  const logger = di.resolve<Logger>(T.Logger);
  const flow = config.oidc
    ? {
        start: di.resolve<StartOidcLogin>(O.StartOidcLogin),
        complete: di.resolve<CompleteOidcLogin>(O.CompleteOidcLogin),
        exchange: di.resolve<ExchangeOidcCode>(O.ExchangeOidcCode),
        cookie: di.resolve<OidcStateCookie>(O.StateCookie),
      }
    : null;
  return oidcRoutes({ flow, logger });
}

/** Start-up housekeeping: forgets expired sign-in states and login codes. */
export async function prepareOidc(di: DependencyContainer, logger: Logger): Promise<void> {
  const purged = await di.resolve<Stores>(T.Stores).oneTimeCodes.purgeExpired(di.resolve<Clock>(T.Clock).now());
  if (purged > 0) logger.info({ purged }, 'expired one-time codes removed');
}
