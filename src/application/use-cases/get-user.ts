import type { Actor } from '../../domain/actor.js';
import type { User } from '../../domain/user.js';
import type { UserRepository } from '../ports.js';
import { requireUser, requireUserAdmin } from './user-admin.js';

/** Reads one account (admin only). */
export class GetUser {
  constructor(private readonly users: UserRepository) {}

  async execute(actor: Actor, id: string): Promise<User> {
    requireUserAdmin(actor);
    return requireUser(this.users, id);
  }
}
