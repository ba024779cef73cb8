import type { Permission, RoleName } from './permissions.js';
import { permissionsOf } from './permissions.js';

/**
 * How the actor proved who they are, so that a write can confirm, just before it commits, that the
 * proof still holds (application/use-cases/authority.ts).
 */
export type Credential =
  /**
   * A JWT: its id, the account's token version it was issued under and, for a bearer token, its expiry
   * (a write held past it, plus the clock tolerance, is refused like one made after it).
   */
  | { readonly kind: 'token'; readonly jti: string; readonly tokenVersion: number; readonly expiresAt?: Date }
  /** A personal API key: its id and lookup digest (the key as stored carries its owner's token version). */
  | { readonly kind: 'key'; readonly keyId: string; readonly lookup: string }
  /** A Kobo device's sync URL: the device's id and the lookup digest of its secret (the device carries its owner's token version). */
  | { readonly kind: 'kobo'; readonly deviceId: string; readonly lookup: string }
  /** The command line: whoever runs it holds the store itself; nothing to confirm. */
  | { readonly kind: 'operator' };

/** Who is making a request, as read from the store for that request. */
export interface Actor {
  readonly id: string;
  readonly username: string;
  readonly roles: readonly RoleName[];
  readonly permissions: readonly Permission[];
  readonly credential: Credential;
}

/** The operator credential: for the command line (and in-process callers in tests). */
export const OPERATOR_CREDENTIAL: Credential = Object.freeze({ kind: 'operator' });

/** The permissions of each list of roles seen (a handful: one per role combination stored), frozen, so every request does not rebuild them. */
const permissionsByRoles = new Map<string, readonly Permission[]>();

function rolePermissions(roles: readonly RoleName[]): readonly Permission[] {
  const key = roles.join(',');
  let permissions = permissionsByRoles.get(key);
  if (!permissions) {
    permissions = Object.freeze(permissionsOf(roles));
    if (permissionsByRoles.size < 64) permissionsByRoles.set(key, permissions);
  }
  return permissions;
}

/** The user acting with the given proof, with the permissions of the user's roles now. */
export function actorFor(user: { id: string; username: string; roles: readonly RoleName[] }, credential: Credential): Actor {
  return { id: user.id, username: user.username, roles: [...user.roles], permissions: rolePermissions(user.roles), credential };
}

export function isAdmin(actor: Actor): boolean {
  return actor.permissions.includes('admin:*');
}

/** `admin:*` grants every permission. */
export function hasPermission(actor: Actor, permission: Permission): boolean {
  return isAdmin(actor) || actor.permissions.includes(permission);
}
