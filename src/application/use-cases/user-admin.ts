import type { Actor } from '../../domain/actor.js';
import { lastAdmin, permissionDenied, userNotFound } from '../../domain/error-catalogue.js';
import { ConflictError, NotFoundError, PermissionDeniedError } from '../../domain/errors.js';
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

export const isActiveAdmin = (u: User): boolean => !u.disabled && u.roles.includes('admin');

/** Throws ConflictError `last_admin` unless an active admin other than exceptId exists. */
export async function assertAnotherAdmin(users: UserRepository, exceptId: string): Promise<void> {
  const pageSize = 100;
  for (let page = 1; ; page++) {
    const { items, total } = await users.list({ page, pageSize });
    if (items.some((u) => u.id !== exceptId && isActiveAdmin(u))) return;
    if (page * pageSize >= total) break;
  }
  throw lastAdmin();
}
