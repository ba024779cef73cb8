import { addressBucket } from '../../domain/client-address.js';
import { invalidCredentials, localLoginDisabled, rateLimited } from '../../domain/error-catalogue.js';
import type { ThrottlePolicy } from '../../domain/login-throttle.js';
import { normalizeEmail, usernameKey, type User } from '../../domain/user.js';
import type { Clock, IssuedToken, LoginThrottleRepository, PasswordHasher, TokenService, UserRepository } from '../ports.js';
import type { AccountLockout } from './account-lockout.js';
import type { AuthEvents, AuthSubject } from './auth-events.js';

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
  /** Where the password was typed, for the auth log: the login route (default) or an OPDS reader's Basic auth. */
  readonly method?: 'password' | 'opds_password';
}

const secondsOf = (ms: number) => Math.ceil(ms / 1000);

/**
 * Password login. Unknown user, wrong password and disabled account fail alike and cost one
 * bcrypt comparison each. Every attempt is reserved in the throttle store, per address and then per
 * account, before bcrypt runs, so a burst of parallel attempts lets at most the limit reach it. An
 * address the account signed in from within 30 days counts against a budget of its own
 * (AccountLockout), so others' failures never lock the owner out there. Once the store has refused an
 * address or a login, this process refuses them for a few seconds without asking the store again (a
 * burst's refusals cost no store work); the store alone admits. Every attempt checked is one auth event.
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
    private readonly lockout: AccountLockout,
    private readonly events: AuthEvents,
  ) {}

  async execute(input: LoginInput): Promise<{ user: User; token: IssuedToken }> {
    if (!this.localLogin) throw localLoginDisabled();
    const method = input.method ?? 'password';
    let subject: AuthSubject = { login: input.login };
    try {
      const addressKey = `address:${addressBucket(input.clientAddress)}`;
      this.refuseKnown(addressKey);
      const user = await this.findUser(input.login);
      if (user) subject = { userId: user.id };
      // Keyed by account, not by the name typed: failures on a name nobody has yet never block its later owner.
      const accountKey = user ? await this.lockout.counterFor(user.id, input.clientAddress) : `login:${input.login.trim().toLowerCase()}`;
      this.refuseKnown(accountKey);
      await this.reserve({ address: addressKey, account: accountKey });

      const matches = await this.hasher.verify(input.password, user?.passwordHash ?? null);
      if (!user || !matches || user.disabled) throw invalidCredentials();
      await this.throttle.reset(accountKey);
      this.lockout.blocks.forget(accountKey);
      await this.throttle.release(addressKey, this.clock.now(), this.policies.address);
      await this.lockout.signedIn(user.id, input.clientAddress);
      this.events.succeeded(method, user.id, input.clientAddress);
      return { user, token: this.tokens.issue(user) };
    } catch (error) {
      this.events.failed(method, subject, input.clientAddress, error);
      throw error;
    }
  }

  /** Refuses at once while this process knows the store blocks `key`. */
  private refuseKnown(key: string): void {
    const waitMs = this.lockout.blocks.waitMs(key, this.clock.now());
    if (waitMs > 0) throw rateLimited(secondsOf(waitMs));
  }

  private async reserve(keys: { address: string; account: string }): Promise<void> {
    const now = this.clock.now();
    const addressWait = await this.throttle.reserve(keys.address, now, this.policies.address);
    if (addressWait > 0) this.refuse(keys.address, now, addressWait);
    const accountWait = await this.throttle.reserve(keys.account, now, this.policies.account).catch(async (error: unknown) => {
      await this.throttle.release(keys.address, now, this.policies.address);
      throw error;
    });
    if (accountWait === 0) return;
    await this.throttle.release(keys.address, now, this.policies.address);
    this.refuse(keys.account, now, accountWait);
  }

  private refuse(knownKey: string, now: Date, waitMs: number): never {
    this.lockout.blocks.remember(knownKey, now, waitMs);
    throw rateLimited(secondsOf(waitMs));
  }

  private async findUser(login: string): Promise<User | null> {
    const trimmed = login.trim();
    if (trimmed.includes('@')) return this.users.findByEmail(normalizeEmail(trimmed));
    return this.users.findByUsername(usernameKey(trimmed));
  }
}
