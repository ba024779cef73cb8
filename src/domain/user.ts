import type { RoleName } from './permissions.js';

export type AuthProvider = 'local' | 'oidc';

export interface OidcIdentity {
  readonly issuer: string;
  readonly subject: string;
}

/** A single sign-on identity as linked to an account, and since when. */
export interface LinkedOidcIdentity extends OidcIdentity {
  readonly linkedAt: Date;
}

export interface User {
  readonly id: string;
  readonly username: string;
  /** Stored lower-case. */
  readonly email: string;
  /** null for accounts that can only sign in through SSO. */
  readonly passwordHash: string | null;
  readonly roles: readonly RoleName[];
  readonly authProvider: AuthProvider;
  readonly oidc: LinkedOidcIdentity | null;
  readonly disabled: boolean;
  /** Bumped to revoke every token issued before (password change or reset, disabling, linking or unlinking single sign-on). */
  readonly tokenVersion: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export const USERNAME_MIN_LENGTH = 3;
export const USERNAME_MAX_LENGTH = 50;
export const USERNAME_PATTERN = new RegExp(`^[A-Za-z0-9._-]{${USERNAME_MIN_LENGTH},${USERNAME_MAX_LENGTH}}$`);
/** The longest e-mail address a mail system accepts (RFC 5321 path limit). */
export const EMAIL_MAX_LENGTH = 254;
export const PASSWORD_MIN_LENGTH = 8;
/** bcrypt reads at most this many bytes. */
export const PASSWORD_MAX_BYTES = 72;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Usernames are unique case-insensitively; this is the key they are compared by. */
export function usernameKey(username: string): string {
  return username.toLowerCase();
}

export function passwordByteLength(password: string): number {
  return new TextEncoder().encode(password).length;
}

export interface NewLocalUser {
  readonly id: string;
  readonly username: string;
  readonly email: string;
  readonly passwordHash: string;
  readonly roles: readonly RoleName[];
  readonly now: Date;
}

/** A new, enabled password account: e-mail normalised, roles without repeats. */
export function newLocalUser(input: NewLocalUser): User {
  return {
    id: input.id,
    username: input.username,
    email: normalizeEmail(input.email),
    passwordHash: input.passwordHash,
    roles: [...new Set(input.roles)],
    authProvider: 'local',
    oidc: null,
    disabled: false,
    tokenVersion: 0,
    createdAt: input.now,
    updatedAt: input.now,
  };
}

/** A change of what an account may do; absent fields stay as they are. */
export interface AccessChange {
  readonly roles?: readonly RoleName[];
  readonly disabled?: boolean;
}

/** Whether the account acts as an admin now: enabled and holding the admin role. */
export function isActiveAdmin(user: Pick<User, 'roles' | 'disabled'>): boolean {
  return !user.disabled && user.roles.includes('admin');
}

/** The account after an access change; disabling bumps the token version, so its tokens stay revoked. */
export function withAccess(user: User, change: AccessChange, updatedAt: Date): User {
  return {
    ...user,
    roles: change.roles ? [...new Set(change.roles)] : user.roles,
    disabled: change.disabled ?? user.disabled,
    tokenVersion: change.disabled === true ? user.tokenVersion + 1 : user.tokenVersion,
    updatedAt,
  };
}
