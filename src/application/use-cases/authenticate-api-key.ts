import type { Actor } from '../../domain/actor.js';
import { actorThroughKey, API_KEY_TOUCH_INTERVAL_MS, keyWorksFor, touchDue, type ApiKey } from '../../domain/api-key.js';
import { addressBucket } from '../../domain/client-address.js';
import { invalidToken, rateLimited } from '../../domain/error-catalogue.js';
import { blockedFor, type ThrottlePolicy } from '../../domain/login-throttle.js';
import { usernameKey, type User } from '../../domain/user.js';
import type { ApiKeyRepository, Clock, LoginThrottleRepository, SecretGenerator, UserRepository } from '../ports.js';
import type { AccountLockout } from './account-lockout.js';
import { lookupOfMd5, lookupOfSecret } from './api-key-access.js';

/** The owner acting through a key, with the key as stored. */
export interface KeyAuthenticated {
  readonly actor: Actor;
  readonly user: User;
  readonly key: ApiKey;
}

/** How the caller proved the key: the secret itself, or KOReader's lowercase hex MD5 of it. */
export type KeyProof = { readonly secret: string } | { readonly md5Hex: string };

/** The account the caller named with the key (OPDS Basic, KOReader), whose key it must be. */
export interface KeyUse {
  readonly username?: string;
}

/**
 * Turns a personal API key into its owner, acting with at most the key's permissions. Using a valid
 * key is not an attempt: it never counts against the client address's failure budget (API.md), so
 * no burst of honest uses can block an address. While the address is blocked every key is refused
 * (429), the right one too; a refused key is counted after its lookup, and once the address is
 * blocked a refused key is answered 429, not 401, so at most the policy's limit of wrong keys is ever
 * answered as checked. Revoked, expired, an owner disabled (or whose password changed) since, or the
 * key of another account than the one named: 401 `invalid_token`. The callers (Authenticate, OPDS
 * Basic, AuthenticateSyncUser) write the auth event. `last_used_at` is written at most once a minute per key, and with it the address as one the owner
 * signed in from (AccountLockout).
 */
export class AuthenticateApiKey {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly users: UserRepository,
    private readonly secrets: SecretGenerator,
    private readonly throttle: LoginThrottleRepository,
    private readonly clock: Clock,
    private readonly policy: ThrottlePolicy,
    private readonly lockout: AccountLockout,
  ) {}

  async execute(proof: KeyProof, clientAddress: string, use: KeyUse = {}): Promise<KeyAuthenticated> {
    const addressKey = `api-key-address:${addressBucket(clientAddress)}`;
    const now = this.clock.now();
    const blocked = blockedFor(await this.throttle.get(addressKey), now);
    if (blocked > 0) throw rateLimited(Math.ceil(blocked / 1000));
    const lookup = 'secret' in proof ? lookupOfSecret(this.secrets, proof.secret) : lookupOfMd5(this.secrets, proof.md5Hex);
    const key = await this.keys.findByLookup(lookup);
    const user = key ? await this.users.findById(key.ownerId) : null;
    const named = use.username === undefined || (user !== null && usernameKey(user.username) === usernameKey(use.username.trim()));
    if (!key || !user || !named || !keyWorksFor(key, user, now)) {
      const waitMs = await this.throttle.reserve(addressKey, now, this.policy);
      throw waitMs > 0 ? rateLimited(Math.ceil(waitMs / 1000)) : invalidToken();
    }
    if (touchDue(key, now)) {
      await this.keys.touchLastUsed(key.id, now, API_KEY_TOUCH_INTERVAL_MS);
      await this.lockout.signedIn(user.id, clientAddress);
    }
    return { actor: actorThroughKey(user, key), user, key };
  }
}
