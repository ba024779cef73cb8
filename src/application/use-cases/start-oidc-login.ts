import { safeReturnTo } from '../../domain/return-to.js';
import type { Clock, OidcProvider, OneTimeCodeRepository, SecretGenerator } from '../ports.js';
import type { OidcAttemptLimiter } from './oidc-attempt-limiter.js';

export interface OidcFlowSettings {
  /** `PUBLIC_URL/api/auth/oidc/callback`, as registered at the provider. */
  readonly redirectUri: string;
  /** PUBLIC_URL's origin and CORS_ORIGINS: where an absolute `return_to` may point. */
  readonly allowedOrigins: readonly string[];
  /** How long a started sign-in may take. */
  readonly stateTtlMs: number;
}

/** What the browser must bring back to the callback (kept in a signed cookie). */
export interface OidcLoginBinding {
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
  readonly returnTo: string | null;
}

export interface StartedOidcLogin {
  readonly redirectUrl: string;
  readonly binding: OidcLoginBinding;
  readonly expiresInMs: number;
}

/** The one-time-code key under which a started sign-in's state is recorded. */
export const oidcStateKey = (stateDigest: string): string => `oidc-state:${stateDigest}`;

/** The account a link flow links the identity to, and its token version when the link was asked for. */
export interface LinkTarget {
  readonly userId: string;
  readonly tokenVersion: number;
}

const LINK_STATE = /^link:(\d+):(.+)$/;

/** What a recorded state stands for: `pending` for a sign-in, `link:<token version>:<user id>` for linking that account. */
export const oidcStateValue = (link: LinkTarget | null): string => (link === null ? 'pending' : `link:${link.tokenVersion}:${link.userId}`);

/** The link a recorded state stands for; null for a sign-in. A link state in any other form (an older one) links nothing. */
export const linkTargetOf = (stateValue: string): LinkTarget | 'malformed' | null => {
  if (!stateValue.startsWith('link:')) return null;
  const match = LINK_STATE.exec(stateValue);
  return match ? { tokenVersion: Number(match[1]), userId: match[2]! } : 'malformed';
};

/**
 * Starts single sign-on: fresh state, nonce and PKCE verifier (256 random bits each), the state
 * recorded server-side for single use, and an unsafe `return_to` dropped.
 */
export class StartOidcLogin {
  private nextPurgeAt = 0;

  constructor(
    private readonly provider: OidcProvider,
    private readonly codes: OneTimeCodeRepository,
    private readonly secrets: SecretGenerator,
    private readonly clock: Clock,
    private readonly limiter: OidcAttemptLimiter,
    private readonly settings: OidcFlowSettings,
  ) {}

  /** `link` (set by StartOidcLink only) makes the callback link the identity to that account, as long as its token version is still the same. */
  async execute(input: { returnTo?: string | undefined; clientAddress: string; link?: LinkTarget }): Promise<StartedOidcLogin> {
    await this.limiter.attempt(input.clientAddress);
    const binding: OidcLoginBinding = {
      state: this.secrets.generate(),
      nonce: this.secrets.generate(),
      codeVerifier: this.secrets.generate(),
      returnTo: safeReturnTo(input.returnTo, this.settings.allowedOrigins),
    };
    const redirectUrl = await this.provider.authorizationUrl({
      state: binding.state,
      nonce: binding.nonce,
      codeChallenge: this.secrets.digest(binding.codeVerifier),
      redirectUri: this.settings.redirectUri,
    });
    const now = this.clock.now();
    await this.forgetAbandoned(now);
    const expiresAt = new Date(now.getTime() + this.settings.stateTtlMs);
    await this.codes.put(oidcStateKey(this.secrets.digest(binding.state)), oidcStateValue(input.link ?? null), expiresAt);
    return { redirectUrl, binding, expiresInMs: this.settings.stateTtlMs };
  }

  /** Sign-ins that were started and never finished expire; sweep them at most once a minute. */
  private async forgetAbandoned(now: Date): Promise<void> {
    if (now.getTime() < this.nextPurgeAt) return;
    this.nextPurgeAt = now.getTime() + 60_000;
    await this.codes.purgeExpired(now);
  }
}
