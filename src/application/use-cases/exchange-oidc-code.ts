import { accountDisabled, invalidLoginCode } from '../../domain/error-catalogue.js';
import { LOGIN_CODE_MAX_LENGTH } from '../../domain/oidc-user.js';
import type { User } from '../../domain/user.js';
import type { Clock, IssuedToken, OneTimeCodeRepository, SecretGenerator, TokenService, UserRepository } from '../ports.js';

/** The one-time-code key under which a login code's account id is kept (by the code's digest). */
export const oidcLoginCodeKey = (codeDigest: string): string => `oidc-code:${codeDigest}`;

/** Trades the one-time code from a single sign-on redirect for the service's token, once. */
export class ExchangeOidcCode {
  constructor(
    private readonly codes: OneTimeCodeRepository,
    private readonly users: UserRepository,
    private readonly secrets: SecretGenerator,
    private readonly tokens: TokenService,
    private readonly clock: Clock,
  ) {}

  async execute(input: { code: string }): Promise<{ user: User; token: IssuedToken }> {
    const invalid = invalidLoginCode();
    if (input.code.length === 0 || input.code.length > LOGIN_CODE_MAX_LENGTH) throw invalid;
    const userId = await this.codes.take(oidcLoginCodeKey(this.secrets.digest(input.code)), this.clock.now());
    const user = userId === null ? null : await this.users.findById(userId);
    if (!user) throw invalid;
    if (user.disabled) throw accountDisabled();
    return { user, token: this.tokens.issue(user) };
  }
}
