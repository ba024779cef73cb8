import type { Actor } from '../../domain/actor.js';
import { invalidCurrentPassword, passwordNotSet, userNotFound } from '../../domain/error-catalogue.js';
import type { Clock, PasswordHasher, UserRepository } from '../ports.js';
import { assertAcceptablePassword } from './password-rules.js';

export interface ChangePasswordInput {
  readonly currentPassword: string;
  readonly newPassword: string;
}

/** Sets a new password after checking the current one; every token issued before stops working. */
export class ChangePassword {
  constructor(
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly clock: Clock,
  ) {}

  async execute(actor: Actor, input: ChangePasswordInput): Promise<void> {
    const user = await this.users.findById(actor.id);
    if (!user) throw userNotFound(actor.id);
    if (!user.passwordHash) {
      throw passwordNotSet();
    }
    if (!(await this.hasher.verify(input.currentPassword, user.passwordHash))) {
      throw invalidCurrentPassword();
    }
    assertAcceptablePassword(input.newPassword, 'new_password');
    const passwordHash = await this.hasher.hash(input.newPassword);
    if (!(await this.users.setPassword(user.id, passwordHash, this.clock.now()))) throw userNotFound(actor.id);
  }
}
