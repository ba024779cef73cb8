import type { Actor } from '../../domain/actor.js';
import { userNotFound } from '../../domain/error-catalogue.js';
import type { RoleName } from '../../domain/permissions.js';
import type { AccessChange } from '../../domain/user.js';
import type { Clock, UserRepository } from '../ports.js';
import type { Authority } from './authority.js';
import type { AccountLockout } from './account-lockout.js';
import { managed, requireUserAdmin, type ManagedUser } from './user-admin.js';

export interface UpdateUserInput {
  readonly id: string;
  readonly roles?: readonly RoleName[];
  readonly disabled?: boolean;
}

/**
 * Changes roles or the disabled flag (admin only), in one atomic write that keeps any concurrent
 * change of other fields; disabling revokes the account's tokens for good; the last active admin
 * cannot be demoted or disabled. The admin's authority is confirmed just before the write.
 */
export class UpdateUser {
  constructor(
    private readonly users: UserRepository,
    private readonly clock: Clock,
    private readonly authority: Authority,
    private readonly lockout: AccountLockout,
  ) {}

  async execute(actor: Actor, input: UpdateUserInput): Promise<ManagedUser> {
    requireUserAdmin(actor);
    const change: AccessChange = {
      ...(input.roles !== undefined && { roles: [...new Set(input.roles)] }),
      ...(input.disabled !== undefined && { disabled: input.disabled }),
    };
    requireUserAdmin((await this.authority.confirm(actor)).actor);
    const updated = await this.users.updateAccess(input.id, change, this.clock.now());
    if (!updated) throw userNotFound(input.id);
    return managed(this.lockout, updated);
  }
}
