import type { Actor } from '../../domain/actor.js';
import { NotFoundError } from '../../domain/errors.js';
import type { User } from '../../domain/user.js';
import type { UserRepository } from '../ports.js';

/** The caller's own account, as stored now. */
export class GetCurrentUser {
  constructor(private readonly users: UserRepository) {}

  async execute(actor: Actor): Promise<User> {
    const user = await this.users.findById(actor.id);
    if (!user) throw new NotFoundError('user_not_found', 'The account no longer exists.');
    return user;
  }
}
