import type { Actor } from '../../domain/actor.js';
import { permissionDenied } from '../../domain/error-catalogue.js';
import { ROLE_NAMES, ROLE_PERMISSIONS, type Permission, type RoleName } from '../../domain/permissions.js';
import { canManageUsers } from '../../domain/policies.js';

/** The built-in roles with their permissions (admin only). */
export class ListRoles {
  execute(actor: Actor): { name: RoleName; permissions: Permission[] }[] {
    if (!canManageUsers(actor)) throw permissionDenied();
    return ROLE_NAMES.map((name) => ({ name, permissions: [...ROLE_PERMISSIONS[name]] }));
  }
}
