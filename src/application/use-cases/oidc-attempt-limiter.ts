import { addressBucket } from '../../domain/client-address.js';
import { rateLimited } from '../../domain/error-catalogue.js';
import type { ThrottlePolicy } from '../../domain/login-throttle.js';
import type { Clock, LoginThrottleRepository } from '../ports.js';

/**
 * Rate limit of the single sign-on start and callback per client address (IPv6: per /56), reserved
 * atomically in the shared throttle store (so it holds across instances and parallel requests):
 * past the policy's limit, 429 until the block ends.
 */
export class OidcAttemptLimiter {
  constructor(
    private readonly throttle: LoginThrottleRepository,
    private readonly clock: Clock,
    private readonly policy: ThrottlePolicy,
  ) {}

  async attempt(clientAddress: string): Promise<void> {
    const waitMs = await this.throttle.reserve(`oidc-address:${addressBucket(clientAddress)}`, this.clock.now(), this.policy);
    if (waitMs > 0) throw rateLimited(Math.ceil(waitMs / 1000));
  }
}
