import { rateLimited } from '../../domain/error-catalogue.js';
import { blockedFor, type ThrottlePolicy } from '../../domain/login-throttle.js';
import type { Clock, LoginThrottleRepository } from '../ports.js';

/**
 * Rate limit of the single sign-on start and callback per client address, counted in the shared
 * throttle store (so it holds across instances): past the policy's limit, 429 until the block ends.
 */
export class OidcAttemptLimiter {
  constructor(
    private readonly throttle: LoginThrottleRepository,
    private readonly clock: Clock,
    private readonly policy: ThrottlePolicy,
  ) {}

  async attempt(clientAddress: string): Promise<void> {
    const key = `oidc-address:${clientAddress}`;
    const now = this.clock.now();
    const waitMs = blockedFor(await this.throttle.get(key), now);
    if (waitMs > 0) throw rateLimited(Math.ceil(waitMs / 1000));
    await this.throttle.recordFailure(key, now, this.policy);
  }
}
