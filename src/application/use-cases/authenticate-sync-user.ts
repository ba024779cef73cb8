import type { Actor } from '../../domain/actor.js';
import { invalidToken, permissionDenied, rateLimited } from '../../domain/error-catalogue.js';
import { AuthenticationError } from '../../domain/errors.js';
import type { ThrottlePolicy } from '../../domain/login-throttle.js';
import { canReadBooks } from '../../domain/policies.js';
import { USERNAME_PATTERN, usernameKey } from '../../domain/user.js';
import type { Clock, LoginThrottleRepository, UserRepository } from '../ports.js';
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
 * (the login account counter) before the key is looked up, and against the client address inside
 * AuthenticateApiKey, so a burst of guesses lets at most the limits reach the lookup; a success gives
 * back its own attempt only. A username or key that cannot be valid is refused without a lookup.
 */
export class AuthenticateSyncUser {
  constructor(
    private readonly users: UserRepository,
    private readonly apiKeys: AuthenticateApiKey,
    private readonly throttle: LoginThrottleRepository,
    private readonly clock: Clock,
    private readonly accountPolicy: ThrottlePolicy,
  ) {}

  async execute(credentials: SyncCredentials, clientAddress: string): Promise<Actor> {
    const username = credentials.username.trim();
    const { keyMd5 } = credentials;
    if (!USERNAME_PATTERN.test(username) || !MD5_HEX.test(keyMd5)) throw invalidToken();
    const named = await this.users.findByUsername(usernameKey(username));
    const accountKey = named ? `account:${named.id}` : `login:${usernameKey(username)}`;
    const reservedAt = this.clock.now();
    const waitMs = await this.throttle.reserve(accountKey, reservedAt, this.accountPolicy);
    if (waitMs > 0) throw rateLimited(Math.ceil(waitMs / 1000));

    const found = await this.apiKeys.execute({ md5Hex: keyMd5 }, clientAddress).catch(async (error: unknown) => {
      // Only a refused key counts against the account; an attempt stopped before the lookup does not.
      if (!(error instanceof AuthenticationError)) await this.throttle.release(accountKey, reservedAt, this.accountPolicy);
      throw error;
    });
    if (!named || found.user.id !== named.id) throw invalidToken();
    // Released, not reset: KOReader devices sync unattended, and a reset by each would let guesses between them go uncounted.
    await this.throttle.release(accountKey, this.clock.now(), this.accountPolicy);
    if (!canReadBooks(found.actor)) throw permissionDenied();
    return found.actor;
  }
}
