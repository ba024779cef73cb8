import { invalidCredentials, localLoginDisabled, rateLimited } from '../../domain/error-catalogue.js';
import { blockedFor, type ThrottlePolicy } from '../../domain/login-throttle.js';
import { normalizeEmail, usernameKey, type User } from '../../domain/user.js';
import type { Clock, IssuedToken, LoginThrottleRepository, PasswordHasher, TokenService, UserRepository } from '../ports.js';

export interface LoginPolicies {
  /** Consecutive failures against one account, from any address. */
  readonly account: ThrottlePolicy;
  /** Failures from one client address, across accounts. */
  readonly address: ThrottlePolicy;
}

export interface LoginInput {
  /** The username or the e-mail address. */
  readonly login: string;
  readonly password: string;
  readonly clientAddress: string;
}

const invalid = invalidCredentials;

/**
 * Password login. Unknown user, wrong password and disabled account fail alike and cost one
 * bcrypt comparison each; failures are throttled per account and per address, checked before hashing.
 */
export class LoginUser {
  constructor(
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly tokens: TokenService,
    private readonly throttle: LoginThrottleRepository,
    private readonly clock: Clock,
    private readonly policies: LoginPolicies,
    private readonly localLogin: boolean,
  ) {}

  async execute(input: LoginInput): Promise<{ user: User; token: IssuedToken }> {
    if (!this.localLogin) throw localLoginDisabled();
    const user = await this.findUser(input.login);
    const accountKey = user ? `account:${user.id}` : `login:${input.login.trim().toLowerCase()}`;
    const addressKey = `address:${input.clientAddress}`;
    await this.refuseWhileBlocked([accountKey, addressKey]);

    const matches = await this.hasher.verify(input.password, user?.passwordHash ?? null);
    if (!user || !matches || user.disabled) {
      const now = this.clock.now();
      await this.throttle.recordFailure(accountKey, now, this.policies.account);
      await this.throttle.recordFailure(addressKey, now, this.policies.address);
      throw invalid();
    }
    await this.throttle.reset(accountKey);
    return { user, token: this.tokens.issue(user) };
  }

  private async findUser(login: string): Promise<User | null> {
    const trimmed = login.trim();
    if (trimmed.includes('@')) return this.users.findByEmail(normalizeEmail(trimmed));
    return this.users.findByUsername(usernameKey(trimmed));
  }

  private async refuseWhileBlocked(keys: readonly string[]): Promise<void> {
    const now = this.clock.now();
    const counters = await Promise.all(keys.map((k) => this.throttle.get(k)));
    const waitMs = Math.max(...counters.map((c) => blockedFor(c, now)));
    if (waitMs > 0) throw rateLimited(Math.ceil(waitMs / 1000));
  }
}
