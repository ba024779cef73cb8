import type { Actor } from '../../domain/actor.js';
import { actsThroughKey } from '../../domain/api-key.js';
import { invalidCurrentPassword, passwordNotSet, permissionDenied, rateLimited, userNotFound } from '../../domain/error-catalogue.js';
import type { ThrottlePolicy } from '../../domain/login-throttle.js';
import type { Clock, LoginThrottleRepository, PasswordHasher, UserRepository } from '../ports.js';
import type { Authority } from './authority.js';
import { assertAcceptablePassword } from './password-rules.js';

export interface ChangePasswordInput {
  readonly currentPassword: string;
  readonly newPassword: string;
}

/**
 * Sets a new password after checking the current one; every token issued before stops working.
 * Each guess of the current password is reserved in the throttle store (the account policy) before
 * bcrypt runs; a right one forgets the earlier guesses. Never through a personal API key (403).
 */
export class ChangePassword {
  constructor(
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly clock: Clock,
    private readonly throttle: LoginThrottleRepository,
    private readonly policy: ThrottlePolicy,
    private readonly authority: Authority,
  ) {}

  async execute(actor: Actor, input: ChangePasswordInput): Promise<void> {
    if (actsThroughKey(actor)) throw permissionDenied();
    const { user } = await this.authority.confirm(actor);
    if (!user) throw userNotFound(actor.id);
    if (!user.passwordHash) {
      throw passwordNotSet();
    }
    const guessKey = `password:${user.id}`;
    const waitMs = await this.throttle.reserve(guessKey, this.clock.now(), this.policy);
    if (waitMs > 0) throw rateLimited(Math.ceil(waitMs / 1000));
    if (!(await this.hasher.verify(input.currentPassword, user.passwordHash))) {
      throw invalidCurrentPassword();
    }
    await this.throttle.reset(guessKey);
    assertAcceptablePassword(input.newPassword, 'new_password');
    const passwordHash = await this.hasher.hash(input.newPassword);
    await this.authority.confirm(actor); // the session may have been revoked while the body arrived or bcrypt ran
    if (!(await this.users.setPassword(user.id, passwordHash, this.clock.now()))) throw userNotFound(actor.id);
  }
}
