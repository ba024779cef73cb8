import type { Actor } from '../../domain/actor.js';
import { NotFoundError, PermissionDeniedError } from '../../domain/errors.js';
import { canManageUsers } from '../../domain/policies.js';
import { usernameKey, type User } from '../../domain/user.js';
import type { UserRepository } from '../ports.js';

/** Looks an account up by its username, case-insensitively (admin only). */
export class FindUserByUsername {
  constructor(private readonly users: UserRepository) {}

  async execute(actor: Actor, username: string): Promise<User> {
    if (!canManageUsers(actor)) throw new PermissionDeniedError();
    const user = await this.users.findByUsername(usernameKey(username));
    if (!user) throw new NotFoundError('user_not_found', `No user named '${username}'.`);
    return user;
  }
}
