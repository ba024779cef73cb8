import type { Permission, RoleName } from './permissions.js';
import { permissionsOf } from './permissions.js';

/** Who is making a request, as read from the store for that request. */
export interface Actor {
  readonly id: string;
  readonly username: string;
  readonly roles: readonly RoleName[];
  readonly permissions: readonly Permission[];
  /** Set when the request came with a personal API key: its id (its permissions are the ceiling above). */
  readonly apiKeyId?: string;
}

export function actorFor(user: { id: string; username: string; roles: readonly RoleName[] }): Actor {
  return { id: user.id, username: user.username, roles: [...user.roles], permissions: permissionsOf(user.roles) };
}

export function isAdmin(actor: Actor): boolean {
  return actor.permissions.includes('admin:*');
}

/** `admin:*` grants every permission. */
export function hasPermission(actor: Actor, permission: Permission): boolean {
  return isAdmin(actor) || actor.permissions.includes(permission);
}
