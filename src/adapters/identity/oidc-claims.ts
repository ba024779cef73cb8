import { z } from 'zod';
import type { OidcIdentityClaims } from '../../application/ports.js';
import { oidcCallbackInvalid } from '../../domain/error-catalogue.js';
import { normalizeEmail } from '../../domain/user.js';

const MAX_ROLE_VALUES = 100;
const MAX_ROLE_LENGTH = 256;
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** Each optional claim falls back to absent when it has the wrong type or size (OIDC-07). */
const ClaimsSchema = z.object({
  iss: z.string().min(1).max(2048),
  sub: z.string().min(1).max(255),
  email: z.string().trim().max(254).regex(EMAIL).optional().catch(undefined),
  email_verified: z.union([z.boolean(), z.enum(['true', 'false'])]).optional().catch(undefined),
  preferred_username: z.string().trim().min(1).max(256).optional().catch(undefined),
});

/** A claim by name, or by a dotted path into nested objects (Keycloak's `realm_access.roles`). */
function claimAt(claims: Readonly<Record<string, unknown>>, name: string): unknown {
  if (Object.prototype.hasOwnProperty.call(claims, name) || !name.includes('.')) return claims[name];
  let current: unknown = claims;
  for (const part of name.split('.')) {
    if (typeof current !== 'object' || current === null || !Object.prototype.hasOwnProperty.call(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function roleValues(value: unknown): string[] {
  const values = typeof value === 'string' ? [value] : Array.isArray(value) ? value : [];
  return values
    .filter((v): v is string => typeof v === 'string' && v.length > 0 && v.length <= MAX_ROLE_LENGTH)
    .slice(0, MAX_ROLE_VALUES);
}

/** Validates the merged ID token and UserInfo claims; a missing or unusable `iss`/`sub` is a bad callback. */
export function identityClaimsFrom(claims: Readonly<Record<string, unknown>>, rolesClaim: string | undefined): OidcIdentityClaims {
  const parsed = ClaimsSchema.safeParse(claims);
  if (!parsed.success) throw oidcCallbackInvalid();
  const c = parsed.data;
  return {
    issuer: c.iss,
    subject: c.sub,
    email: c.email ? normalizeEmail(c.email) : null,
    emailVerified: c.email_verified === true || c.email_verified === 'true',
    username: c.preferred_username ?? null,
    roles: rolesClaim ? roleValues(claimAt(claims, rolesClaim)) : [],
  };
}
