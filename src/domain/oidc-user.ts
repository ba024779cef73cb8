import type { RoleName } from './permissions.js';
import { USERNAME_MAX_LENGTH, USERNAME_PATTERN } from './user.js';

const SUFFIX_ROOM = 8;
const FALLBACK_USERNAME = 'user';

/** Domain of the e-mail addresses given to SSO accounts whose own address cannot be stored. */
export const PLACEHOLDER_EMAIL_DOMAIN = 'sso.invalid';

/** The longest one-time sign-in code accepted; longer ones are refused unread. */
export const LOGIN_CODE_MAX_LENGTH = 256;

/**
 * A valid username from what the provider offers (`preferred_username`, else the e-mail's local
 * part): accents dropped, other characters outside letters, digits, `.`, `_`, `-` become `-`.
 */
export function usernameBase(preferred: string | null, email: string | null): string {
  const source = preferred ?? email?.split('@')[0] ?? '';
  const cleaned = source
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, USERNAME_MAX_LENGTH - SUFFIX_ROOM);
  return USERNAME_PATTERN.test(cleaned) ? cleaned : FALLBACK_USERNAME;
}

/** The n-th candidate (0-based) for an account's username: `base`, `base-2`, `base-3`, ... */
export function usernameCandidate(base: string, attempt: number): string {
  return attempt === 0 ? base : `${base}-${attempt + 1}`;
}

/** An address no one can receive mail at, unique to the account id. */
export function placeholderEmail(userId: string): string {
  return `${userId.toLowerCase()}@${PLACEHOLDER_EMAIL_DOMAIN}`;
}

/** Roles mapped from the provider's claim values; the default role when none maps. */
export function rolesFromClaim(values: readonly string[], roleMap: ReadonlyMap<string, RoleName>, defaultRole: RoleName): RoleName[] {
  const mapped = new Set<RoleName>();
  for (const value of values) {
    const role = roleMap.get(value);
    if (role) mapped.add(role);
  }
  return mapped.size > 0 ? [...mapped] : [defaultRole];
}
