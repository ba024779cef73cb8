import type { Actor } from '../../domain/actor.js';
import type { RoleName } from '../../domain/permissions.js';
import type { User } from '../../domain/user.js';
import type { Clock, UserRepository } from '../ports.js';
import { assertAnotherAdmin, isActiveAdmin, requireUser, requireUserAdmin } from './user-admin.js';

export interface UpdateUserInput {
  readonly id: string;
  readonly roles?: readonly RoleName[];
  readonly disabled?: boolean;
}

/** Changes roles or the disabled flag (admin only); the last active admin cannot be removed. */
export class UpdateUser {
  constructor(
    private readonly users: UserRepository,
    private readonly clock: Clock,
  ) {}

  async execute(actor: Actor, input: UpdateUserInput): Promise<User> {
    requireUserAdmin(actor);
    const user = await requireUser(this.users, input.id);
    const updated: User = {
      ...user,
      roles: input.roles ? [...new Set(input.roles)] : user.roles,
      disabled: input.disabled ?? user.disabled,
      updatedAt: this.clock.now(),
    };
    if (isActiveAdmin(user) && !isActiveAdmin(updated)) await assertAnotherAdmin(this.users, user.id);
    await this.users.update(updated);
    return updated;
  }
}
