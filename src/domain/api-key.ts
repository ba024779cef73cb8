import type { Actor } from './actor.js';
import { actorFor, hasPermission } from './actor.js';
import type { Permission, RoleName } from './permissions.js';
import { PERMISSIONS } from './permissions.js';
import type { User } from './user.js';

/** Every personal API key secret starts with this. */
export const API_KEY_PREFIX = 'stk_';
/** How many characters after `stk_` are kept in clear, to tell keys apart in lists. */
export const API_KEY_DISPLAY_LENGTH = 8;
/** `last_used_at` is written at most this often per key. */
export const API_KEY_TOUCH_INTERVAL_MS = 60_000;
export const API_KEY_NAME_MAX_LENGTH = 100;

/** A personal API key as stored: never the secret, only its lookup digest and a display prefix. */
export interface ApiKey {
  readonly id: string;
  readonly ownerId: string;
  readonly name: string;
  /** sha256(md5hex(secret)): finds the key from the secret or from KOReader's MD5 of it. */
  readonly lookup: string;
  /** The first characters after `stk_`. */
  readonly prefix: string;
  /** The most the key may do; always intersected with the owner's current permissions. */
  readonly permissions: readonly Permission[];
  /** The owner's token version when the key was made: a password change, reset or disabling revokes the key. */
  readonly ownerTokenVersion: number;
  readonly expiresAt: Date | null;
  readonly lastUsedAt: Date | null;
  readonly createdAt: Date;
}

/** Whether a bearer or password looks like an API key secret (and not a JWT or a password). */
export function isApiKeySecret(value: string): boolean {
  return value.startsWith(API_KEY_PREFIX);
}

/** The display prefix of a secret. */
export function displayPrefixOf(secret: string): string {
  return secret.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + API_KEY_DISPLAY_LENGTH);
}

export function isExpired(key: Pick<ApiKey, 'expiresAt'>, now: Date): boolean {
  return key.expiresAt !== null && key.expiresAt.getTime() <= now.getTime();
}

/** Permissions in canonical order without repeats. */
export function canonicalPermissions(permissions: readonly Permission[]): Permission[] {
  const wanted = new Set(permissions);
  return PERMISSIONS.filter((p) => wanted.has(p));
}

/** The permissions of `wanted` that the owner does not hold now (`admin:*` holds them all). */
export function permissionsNotHeld(owner: Actor, wanted: readonly Permission[]): Permission[] {
  return wanted.filter((p) => !hasPermission(owner, p));
}

/**
 * The owner (as read now, with their current roles) acting through the key: the key's permissions that
 * the owner still holds, and the key as the credential, so that what keys may never do (manage keys,
 * change the password, link sign-on) can be refused and a write can confirm the key before it commits.
 */
export function actorThroughKey(owner: { id: string; username: string; roles: readonly RoleName[] }, key: Pick<ApiKey, 'id' | 'lookup' | 'permissions'>): Actor {
  const full = actorFor(owner, { kind: 'key', keyId: key.id, lookup: key.lookup });
  return { ...full, permissions: canonicalPermissions(key.permissions.filter((p) => hasPermission(full, p))) };
}

/**
 * Whether the actor is acting through a secret that is not a session: a personal API key, or a Kobo
 * device's sync URL. Such an actor never manages keys or devices, changes the password or links sign-on.
 */
export function actsThroughKey(actor: Actor): boolean {
  return actor.credential.kind === 'key' || actor.credential.kind === 'kobo';
}

/** Whether the key works for this owner now: not expired, owner enabled, and no revocation of the owner's credentials since it was made. */
export function keyWorksFor(key: ApiKey, owner: Pick<User, 'id' | 'disabled' | 'tokenVersion'>, now: Date): boolean {
  return key.ownerId === owner.id && !owner.disabled && owner.tokenVersion === key.ownerTokenVersion && !isExpired(key, now);
}

/** Whether `lastUsedAt` is stale enough to record a new use at `now`. */
export function touchDue(key: Pick<ApiKey, 'lastUsedAt'>, now: Date): boolean {
  return key.lastUsedAt === null || now.getTime() - key.lastUsedAt.getTime() >= API_KEY_TOUCH_INTERVAL_MS;
}
