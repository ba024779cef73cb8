import type { Actor } from '../../domain/actor.js';
import type { UserRepository } from '../ports.js';
import type { AccountLockout } from './account-lockout.js';
import { managed, requireUser, requireUserAdmin, type ManagedUser } from './user-admin.js';

/** Reads one account (admin only), with when its sign-in block ends. */
export class GetUser {
  constructor(
    private readonly users: UserRepository,
    private readonly lockout: AccountLockout,
  ) {}

  async execute(actor: Actor, id: string): Promise<ManagedUser> {
    requireUserAdmin(actor);
    return managed(this.lockout, await requireUser(this.users, id));
  }
}
