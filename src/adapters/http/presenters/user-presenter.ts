import type { IssuedToken } from '../../../application/ports.js';
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

/** What admins see: the public user plus whether the account is disabled. */
export function presentManagedUser(user: User) {
  return { ...presentUser(user), disabled: user.disabled } satisfies z.infer<typeof ManagedUserSchema>;
}
