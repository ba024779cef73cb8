import type { Actor } from '../../domain/actor.js';
import { actorThroughKey, API_KEY_TOUCH_INTERVAL_MS, keyWorksFor, touchDue, type ApiKey } from '../../domain/api-key.js';
import { addressBucket } from '../../domain/client-address.js';
import { invalidToken, rateLimited } from '../../domain/error-catalogue.js';
import type { ThrottlePolicy } from '../../domain/login-throttle.js';
import type { User } from '../../domain/user.js';
import type { ApiKeyRepository, Clock, LoginThrottleRepository, SecretGenerator, UserRepository } from '../ports.js';
import { lookupOfMd5, lookupOfSecret } from './api-key-access.js';

/** The owner acting through a key, with the key as stored. */
export interface KeyAuthenticated {
  readonly actor: Actor;
  readonly user: User;
  readonly key: ApiKey;
}

/** How the caller proved the key: the secret itself, or KOReader's lowercase hex MD5 of it. */
export type KeyProof = { readonly secret: string } | { readonly md5Hex: string };

/**
 * Turns a personal API key into its owner, acting with at most the key's permissions. Every attempt
 * is reserved in the throttle store under the client address before the key is looked up, so a burst
 * of guesses lets at most the policy's limit reach the lookup; a working key gives its attempt back.
 * Revoked, expired, or an owner disabled (or whose password changed) since: 401 `invalid_token`.
 * `last_used_at` is written at most once a minute per key.
 */
export class AuthenticateApiKey {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly users: UserRepository,
    private readonly secrets: SecretGenerator,
    private readonly throttle: LoginThrottleRepository,
    private readonly clock: Clock,
    private readonly policy: ThrottlePolicy,
  ) {}

  async execute(proof: KeyProof, clientAddress: string): Promise<KeyAuthenticated> {
    const addressKey = `api-key-address:${addressBucket(clientAddress)}`;
    const waitMs = await this.throttle.reserve(addressKey, this.clock.now(), this.policy);
    if (waitMs > 0) throw rateLimited(Math.ceil(waitMs / 1000));
    const lookup = 'secret' in proof ? lookupOfSecret(this.secrets, proof.secret) : lookupOfMd5(this.secrets, proof.md5Hex);
    const key = await this.keys.findByLookup(lookup);
    const user = key ? await this.users.findById(key.ownerId) : null;
    const now = this.clock.now();
    if (!key || !user || !keyWorksFor(key, user, now)) throw invalidToken();
    await this.throttle.release(addressKey, now, this.policy);
    if (touchDue(key, now)) await this.keys.touchLastUsed(key.id, now, API_KEY_TOUCH_INTERVAL_MS);
    return { actor: actorThroughKey(user, key), user, key };
  }
}
