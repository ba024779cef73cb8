import type { Actor } from '../../domain/actor.js';
import type { UserRepository } from '../ports.js';
import { assertAnotherAdmin, isActiveAdmin, requireUser, requireUserAdmin } from './user-admin.js';

/** Deletes an account (admin only); its tokens stop working at once. */
export class DeleteUser {
  constructor(private readonly users: UserRepository) {}

  async execute(actor: Actor, id: string): Promise<void> {
    requireUserAdmin(actor);
    const user = await requireUser(this.users, id);
    if (isActiveAdmin(user)) await assertAnotherAdmin(this.users, user.id);
    await this.users.delete(id);
  }
}
