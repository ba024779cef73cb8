import type { Actor } from '../../domain/actor.js';
import { permissionDenied, userNotFound } from '../../domain/error-catalogue.js';
import { canManageUsers } from '../../domain/policies.js';
import type { User } from '../../domain/user.js';
import type { UserRepository } from '../ports.js';
import type { AccountLockout } from './account-lockout.js';

/** An account as an admin sees it: with when its sign-in block ends (null: not blocked). */
export interface ManagedUser {
  readonly user: User;
  readonly lockedUntil: Date | null;
}

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

/** The account with its block's end, as admins see it. */
export async function managed(lockout: AccountLockout, user: User): Promise<ManagedUser> {
  return { user, lockedUntil: await lockout.lockedUntil(user.id) };
}
