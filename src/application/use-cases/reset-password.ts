import type { Actor } from '../../domain/actor.js';
import { permissionDenied, userNotFound } from '../../domain/error-catalogue.js';
import { canManageUsers } from '../../domain/policies.js';
import type { User } from '../../domain/user.js';
import type { Clock, PasswordHasher, UserRepository } from '../ports.js';
import type { AccountLockout } from './account-lockout.js';
import type { Authority } from './authority.js';
import { assertAcceptablePassword } from './password-rules.js';

/** Sets a user's password without the current one (admin only); every token issued before stops working, and every sign-in block is lifted. */
export class ResetPassword {
  constructor(
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly clock: Clock,
    private readonly authority: Authority,
    private readonly lockout: AccountLockout,
  ) {}

  async execute(actor: Actor, input: { userId: string; newPassword: string }): Promise<User> {
    if (!canManageUsers(actor)) throw permissionDenied();
    const user = await this.users.findById(input.userId);
    if (!user) throw userNotFound(input.userId);
    assertAcceptablePassword(input.newPassword, 'password');
    const passwordHash = await this.hasher.hash(input.newPassword);
    if (!canManageUsers((await this.authority.confirm(actor)).actor)) throw permissionDenied();
    const updated = await this.users.setPassword(user.id, passwordHash, this.clock.now());
    if (!updated) throw userNotFound(input.userId);
    await this.lockout.unlock(updated.id);
    return updated;
  }
}
