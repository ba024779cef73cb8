import type { Actor } from '../../domain/actor.js';
import { permissionDenied, userNotFound } from '../../domain/error-catalogue.js';
import { canManageUsers } from '../../domain/policies.js';
import { usernameKey, type User } from '../../domain/user.js';
import type { UserRepository } from '../ports.js';

/** Looks an account up by its username, case-insensitively (admin only). */
export class FindUserByUsername {
  constructor(private readonly users: UserRepository) {}

  async execute(actor: Actor, username: string): Promise<User> {
    if (!canManageUsers(actor)) throw permissionDenied();
    const user = await this.users.findByUsername(usernameKey(username));
    if (!user) throw userNotFound(username);
    return user;
  }
}
