import type { Actor } from '../../domain/actor.js';
import type { UserRepository } from '../ports.js';
import type { AccountLockout } from './account-lockout.js';
import type { Authority } from './authority.js';
import { requireUser, requireUserAdmin } from './user-admin.js';

/** Lifts every sign-in block of an account at once (admin only): its own, its addresses' and its current-password guesses. */
export class UnlockUser {
  constructor(
    private readonly users: UserRepository,
    private readonly lockout: AccountLockout,
    private readonly authority: Authority,
  ) {}

  async execute(actor: Actor, userId: string): Promise<void> {
    requireUserAdmin(actor);
    const user = await requireUser(this.users, userId);
    requireUserAdmin((await this.authority.confirm(actor)).actor);
    await this.lockout.unlock(user.id);
  }
}
