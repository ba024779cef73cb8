import type { IssuedToken } from '../../../application/ports.js';
import type { ManagedUser } from '../../../application/use-cases/user-admin.js';
import { permissionsOf } from '../../../domain/permissions.js';
import type { User } from '../../../domain/user.js';
import type { ManagedUserSchema, TokenResponseSchema, UserSchema } from '../schemas/identity.js';
import type { z } from '../zod.js';

/** The public user: never a hash, token version or other internal field. */
export function presentUser(user: User) {
  return {
    id: user.id,
    username: user.username,
    email: user.email,
    roles: [...user.roles],
    permissions: permissionsOf(user.roles),
    auth_provider: user.authProvider,
    sso: user.oidc ? { issuer: user.oidc.issuer, linked_at: user.oidc.linkedAt.toISOString() } : null,
    created_at: user.createdAt.toISOString(),
  } satisfies z.infer<typeof UserSchema>;
}

export function presentToken(result: { user: User; token: IssuedToken }) {
  return {
    access_token: result.token.token,
    token_type: 'bearer',
    expires_in: result.token.expiresIn,
    user: presentUser(result.user),
  } satisfies z.infer<typeof TokenResponseSchema>;
}

/** What admins see: the public user, whether the account is disabled, and when its sign-in block ends. */
export function presentManagedUser({ user, lockedUntil }: ManagedUser) {
  return { ...presentUser(user), disabled: user.disabled, locked_until: lockedUntil?.toISOString() ?? null } satisfies z.infer<typeof ManagedUserSchema>;
}
