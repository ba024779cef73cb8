import { accountDisabled, oidcCallbackInvalid } from '../../domain/error-catalogue.js';
import { withLoginCode } from '../../domain/return-to.js';
import type { User } from '../../domain/user.js';
import type { Clock, IssuedToken, OidcProvider, OneTimeCodeRepository, SecretGenerator, TokenService } from '../ports.js';
import { oidcLoginCodeKey } from './exchange-oidc-code.js';
import type { OidcAccounts } from './oidc-accounts.js';
import type { OidcAttemptLimiter } from './oidc-attempt-limiter.js';
import { linkTargetOf, oidcStateKey, type OidcFlowSettings, type OidcLoginBinding } from './start-oidc-login.js';

export interface OidcCallbackInput {
  /** What the signed cookie carried; null when it was missing, forged or expired. */
  readonly binding: OidcLoginBinding | null;
  /** The `state` parameter of the callback. */
  readonly state: string | undefined;
  /** The callback's query string, `?` included. */
  readonly search: string;
  readonly clientAddress: string;
}

export type OidcLoginResult =
  | { readonly kind: 'signed_in'; readonly user: User; readonly token: IssuedToken }
  | { readonly kind: 'redirect'; readonly location: string; readonly user: User };

const LOGIN_CODE_TTL_MS = 60_000;

/**
 * Finishes single sign-on: checks the callback's state against the browser's cookie, takes the
 * recorded state (single use), trades the code at the provider, finds, links or creates the account
 * (or, for a link flow, links the identity to the account that started it), and signs it in; with a
 * return target, the browser is sent there with a one-time code (stored hashed, 60 s) instead of the token.
 */
export class CompleteOidcLogin {
  constructor(
    private readonly provider: OidcProvider,
    private readonly accounts: OidcAccounts,
    private readonly codes: OneTimeCodeRepository,
    private readonly secrets: SecretGenerator,
    private readonly tokens: TokenService,
    private readonly clock: Clock,
    private readonly limiter: OidcAttemptLimiter,
    private readonly settings: Pick<OidcFlowSettings, 'redirectUri'>,
  ) {}

  async execute(input: OidcCallbackInput): Promise<OidcLoginResult> {
    await this.limiter.attempt(input.clientAddress);
    const { binding } = input;
    if (!binding || !input.state || input.state !== binding.state) {
      throw oidcCallbackInvalid();
    }
    const pending = await this.codes.take(oidcStateKey(this.secrets.digest(binding.state)), this.clock.now());
    if (pending === null) throw oidcCallbackInvalid();
    const claims = await this.provider.exchange({
      currentUrl: `${this.settings.redirectUri}${input.search}`,
      state: binding.state,
      nonce: binding.nonce,
      codeVerifier: binding.codeVerifier,
      redirectUri: this.settings.redirectUri,
    });
    const linkTo = linkTargetOf(pending);
    if (linkTo === 'malformed') throw oidcCallbackInvalid();
    const user = linkTo === null ? await this.accounts.resolve(claims) : await this.accounts.link(linkTo, claims);
    if (user.disabled) throw accountDisabled();
    if (binding.returnTo === null) return { kind: 'signed_in', user, token: this.tokens.issue(user) };
    const code = this.secrets.generate();
    const expiresAt = new Date(this.clock.now().getTime() + LOGIN_CODE_TTL_MS);
    await this.codes.put(oidcLoginCodeKey(this.secrets.digest(code)), user.id, expiresAt);
    return { kind: 'redirect', location: withLoginCode(binding.returnTo, code), user };
  }
}
