import { addressBucket } from '../../domain/client-address.js';
import { invalidCredentials, localLoginDisabled, rateLimited } from '../../domain/error-catalogue.js';
import type { ThrottlePolicy } from '../../domain/login-throttle.js';
import { normalizeEmail, usernameKey, type User } from '../../domain/user.js';
import type { Clock, IssuedToken, LoginThrottleRepository, PasswordHasher, TokenService, UserRepository } from '../ports.js';

export interface LoginPolicies {
  /** Consecutive failures against one account, from any address. */
  readonly account: ThrottlePolicy;
  /** Failures from one client address (IPv6: its /56), across accounts. */
  readonly address: ThrottlePolicy;
}

export interface LoginInput {
  /** The username or the e-mail address. */
  readonly login: string;
  readonly password: string;
  readonly clientAddress: string;
}

const secondsOf = (ms: number) => Math.ceil(ms / 1000);

/**
 * Password login. Unknown user, wrong password and disabled account fail alike and cost one
 * bcrypt comparison each. Every attempt is reserved in the throttle store, per address and then per
 * account, before bcrypt runs, so a burst of parallel attempts lets at most the limit reach it.
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
    const addressKey = `address:${addressBucket(input.clientAddress)}`;
    await this.reserve(accountKey, addressKey);

    const matches = await this.hasher.verify(input.password, user?.passwordHash ?? null);
    if (!user || !matches || user.disabled) throw invalidCredentials();
    await this.throttle.reset(accountKey);
    await this.throttle.release(addressKey, this.clock.now(), this.policies.address);
    return { user, token: this.tokens.issue(user) };
  }

  private async reserve(accountKey: string, addressKey: string): Promise<void> {
    const now = this.clock.now();
    const addressWait = await this.throttle.reserve(addressKey, now, this.policies.address);
    if (addressWait > 0) throw rateLimited(secondsOf(addressWait));
    const accountWait = await this.throttle.reserve(accountKey, now, this.policies.account).catch(async (error: unknown) => {
      await this.throttle.release(addressKey, now, this.policies.address);
      throw error;
    });
    if (accountWait === 0) return;
    await this.throttle.release(addressKey, now, this.policies.address);
    throw rateLimited(secondsOf(accountWait));
  }

  private async findUser(login: string): Promise<User | null> {
    const trimmed = login.trim();
    if (trimmed.includes('@')) return this.users.findByEmail(normalizeEmail(trimmed));
    return this.users.findByUsername(usernameKey(trimmed));
  }
}
