import type { Actor } from '../../domain/actor.js';
import type { Clock, UserRepository } from '../ports.js';
import type { Authority } from './authority.js';
import { requireUser, requireUserAdmin } from './user-admin.js';

/** Unlinks an account's single sign-on identity (admin only); every session of the account ends. An account with none is left as it is. */
export class UnlinkUserOidc {
  constructor(
    private readonly users: UserRepository,
    private readonly authority: Authority,
    private readonly clock: Clock,
  ) {}

  async execute(actor: Actor, userId: string): Promise<void> {
    requireUserAdmin(actor);
    const user = await requireUser(this.users, userId);
    requireUserAdmin((await this.authority.confirm(actor)).actor);
    await this.users.unlinkOidcIdentity(user.id, this.clock.now());
  }
}
