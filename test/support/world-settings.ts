import { KOBO_SYNC_PAGE_SIZE } from '../../src/bootstrap/use-cases.js';
import type { LoginPolicies } from '../../src/application/use-cases/login-user.js';
import type { OidcAccountSettings } from '../../src/application/use-cases/oidc-accounts.js';
import type { RegistrationSettings } from '../../src/application/use-cases/register-user.js';
import type { OidcFlowSettings } from '../../src/application/use-cases/start-oidc-login.js';
import type { ThrottlePolicy } from '../../src/domain/login-throttle.js';

/** The settings a use-case world is built with; each test overrides only what it is about. */
export interface WorldSettings {
  readonly registration: RegistrationSettings;
  readonly loginPolicies: LoginPolicies;
  readonly oidcPolicy: ThrottlePolicy;
  readonly oidcAccounts: OidcAccountSettings;
  readonly oidcFlow: OidcFlowSettings;
  readonly maxUploadBytes: number;
  readonly jwtSecret: string;
  /** Change-feed entries one Kobo sync page reads at most. */
  readonly koboSyncPageSize: number;
}

const MINUTE = 60_000;

export const DEFAULT_WORLD_SETTINGS: WorldSettings = {
  registration: { registrationOpen: true, localLogin: true, defaultRole: 'user', firstUserBecomesAdmin: false },
  loginPolicies: {
    account: { maxFailures: 3, windowMs: 15 * MINUTE, blockMs: 5 * MINUTE, maxBlockMs: 60 * MINUTE },
    address: { maxFailures: 10, windowMs: 15 * MINUTE, blockMs: 15 * MINUTE, maxBlockMs: 60 * MINUTE },
  },
  oidcPolicy: { maxFailures: 20, windowMs: MINUTE, blockMs: MINUTE, maxBlockMs: 10 * MINUTE },
  oidcAccounts: { defaultRole: 'user', roleMap: null },
  oidcFlow: { redirectUri: 'https://stacks.example/api/auth/oidc/callback', allowedOrigins: ['https://stacks.example'], stateTtlMs: 10 * MINUTE },
  maxUploadBytes: 1024 * 1024,
  jwtSecret: 'unit-test-secret-that-is-at-least-32-bytes',
  koboSyncPageSize: KOBO_SYNC_PAGE_SIZE,
};
