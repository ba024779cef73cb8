import type { Actor } from '../../domain/actor.js';
import { permissionDenied, userNotFound } from '../../domain/error-catalogue.js';
import { canManageUsers } from '../../domain/policies.js';
import type { User } from '../../domain/user.js';
import type { UserRepository } from '../ports.js';

/** Throws PermissionDeniedError unless the actor manages users. */
export function requireUserAdmin(actor: Actor): void {
  if (!canManageUsers(actor)) throw permissionDenied();
}

/** The stored user, or NotFoundError `user_not_found`. */
export async function requireUser(users: UserRepository, id: string): Promise<User> {
  const user = await users.findById(id);
  if (!user) throw userNotFound(id);
  return user;
}
