export const PERMISSIONS = [
  'books:read',
  'books:write',
  'books:delete',
  'shelves:read',
  'shelves:write',
  'admin:*',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export const ROLE_PERMISSIONS = {
  admin: ['admin:*'],
  user: ['books:read', 'books:write', 'books:delete', 'shelves:read', 'shelves:write'],
  reader: ['books:read', 'shelves:read'],
} as const satisfies Record<string, readonly Permission[]>;

export type RoleName = keyof typeof ROLE_PERMISSIONS;

export const ROLE_NAMES = Object.keys(ROLE_PERMISSIONS) as RoleName[];

export function isRoleName(value: string): value is RoleName {
  return Object.prototype.hasOwnProperty.call(ROLE_PERMISSIONS, value);
}

/** The union of the permissions of the given roles, in the canonical order. */
export function permissionsOf(roles: readonly RoleName[]): Permission[] {
  const granted = new Set<Permission>(roles.flatMap((r) => ROLE_PERMISSIONS[r]));
  return PERMISSIONS.filter((p) => granted.has(p));
}
