import { invalidCurrentPassword, passwordNotSet, rateLimited } from '../../domain/error-catalogue.js';
import type { ThrottlePolicy } from '../../domain/login-throttle.js';
import type { User } from '../../domain/user.js';
import type { Clock, LoginThrottleRepository, PasswordHasher } from '../ports.js';
import { passwordCounter } from './account-lockout.js';
import type { AuthEvents } from './auth-events.js';

/**
 * The check of an account's current password before a change that needs it (a new password, linking
 * or unlinking single sign-on). Each guess is reserved in the throttle store (the account policy, a
 * counter of its own per account) before bcrypt runs; a right one forgets the earlier guesses. An
 * account without a password has none to give: 409 `password_not_set`. Each check is one auth event.
 */
export class CurrentPasswordCheck {
  constructor(
    private readonly hasher: PasswordHasher,
    private readonly throttle: LoginThrottleRepository,
    private readonly clock: Clock,
    private readonly policy: ThrottlePolicy,
    private readonly events: AuthEvents,
  ) {}

  async verify(user: User, password: string, clientAddress: string): Promise<void> {
    if (!user.passwordHash) throw passwordNotSet();
    const key = passwordCounter(user.id);
    try {
      const waitMs = await this.throttle.reserve(key, this.clock.now(), this.policy);
      if (waitMs > 0) throw rateLimited(Math.ceil(waitMs / 1000));
      if (!(await this.hasher.verify(password, user.passwordHash))) throw invalidCurrentPassword();
    } catch (error) {
      this.events.failed('current_password', { userId: user.id }, clientAddress, error);
      throw error;
    }
    await this.throttle.reset(key);
    this.events.succeeded('current_password', user.id, clientAddress);
  }
}
