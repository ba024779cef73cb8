import type { Actor } from '../../domain/actor.js';
import { invalidToken, permissionDenied, rateLimited } from '../../domain/error-catalogue.js';
import { AuthenticationError } from '../../domain/errors.js';
import { canReadBooks } from '../../domain/policies.js';
import { USERNAME_PATTERN, usernameKey } from '../../domain/user.js';
import type { Clock, LoginThrottleRepository, UserRepository } from '../ports.js';
import type { AccountLockout } from './account-lockout.js';
import type { AuthEvents, AuthSubject } from './auth-events.js';
import type { AuthenticateApiKey } from './authenticate-api-key.js';

/** KOReader's `x-auth-user` and `x-auth-key` (the lowercase hex MD5 of what the person typed). */
export interface SyncCredentials {
  readonly username: string;
  readonly keyMd5: string;
}

const MD5_HEX = /^[0-9a-f]{32}$/i;

/**
 * KOReader sync sign-in: the key must be a working API key of the account named by `username`
 * (compared case-insensitively) that may read books. Each attempt is reserved against that account
 * (the login account counter, or the address's own when the account signed in from it within 30 days:
 * AccountLockout) before the key is looked up, and a wrong key is counted against the client address
 * inside AuthenticateApiKey, so a burst of guesses lets at most the limits reach the lookup; a success
 * gives back its own attempt only. A username or key that cannot be valid is refused without a lookup.
 * Each sign-in is one auth event.
 */
export class AuthenticateSyncUser {
  constructor(
    private readonly users: UserRepository,
    private readonly apiKeys: AuthenticateApiKey,
    private readonly throttle: LoginThrottleRepository,
    private readonly clock: Clock,
    private readonly lockout: AccountLockout,
    private readonly events: AuthEvents,
  ) {}

  async execute(credentials: SyncCredentials, clientAddress: string): Promise<Actor> {
    const username = credentials.username.trim();
    let subject: AuthSubject = { login: username };
    try {
      const actor = await this.check(username, credentials.keyMd5, clientAddress, (userId) => (subject = { userId }));
      this.events.succeeded('koreader_key', actor.id, clientAddress);
      return actor;
    } catch (error) {
      this.events.failed('koreader_key', subject, clientAddress, error);
      throw error;
    }
  }

  private async check(username: string, keyMd5: string, clientAddress: string, named: (userId: string) => void): Promise<Actor> {
    if (!USERNAME_PATTERN.test(username) || !MD5_HEX.test(keyMd5)) throw invalidToken();
    const account = await this.users.findByUsername(usernameKey(username));
    if (account) named(account.id);
    const accountKey = account ? await this.lockout.counterFor(account.id, clientAddress) : `login:${usernameKey(username)}`;
    const policy = this.lockout.policy;
    const reservedAt = this.clock.now();
    const waitMs = await this.throttle.reserve(accountKey, reservedAt, policy);
    if (waitMs > 0) throw rateLimited(Math.ceil(waitMs / 1000));

    const found = await this.apiKeys.execute({ md5Hex: keyMd5 }, clientAddress, { username }).catch(async (error: unknown) => {
      // Only a refused key counts against the account; an attempt stopped before the lookup does not.
      if (!(error instanceof AuthenticationError)) await this.throttle.release(accountKey, reservedAt, policy);
      throw error;
    });
    // Released, not reset: KOReader devices sync unattended, and a reset by each would let guesses between them go uncounted.
    await this.throttle.release(accountKey, this.clock.now(), policy);
    if (!canReadBooks(found.actor)) throw permissionDenied();
    return found.actor;
  }
}
