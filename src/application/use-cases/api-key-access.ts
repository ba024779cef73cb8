import { actorFor, type Actor } from '../../domain/actor.js';
import { actsThroughKey } from '../../domain/api-key.js';
import { permissionDenied } from '../../domain/error-catalogue.js';
import { canManageUsers } from '../../domain/policies.js';
import type { User } from '../../domain/user.js';
import type { SecretGenerator, UserRepository } from '../ports.js';
import { requireUser } from './user-admin.js';

/**
 * The owner whose keys the actor manages: the actor's own account, or (admin only) anyone's. Keys are
 * managed from a signed-in session only: an actor acting through a key is refused (403), whatever the
 * key's permissions. Read from the store (or `read`, the actor's account just read), so the owner's
 * current roles apply.
 */
export async function keyOwnerFor(
  actor: Actor, ownerId: string, users: UserRepository, read: User | null = null,
): Promise<{ owner: User; ownerActor: Actor }> {
  if (actsThroughKey(actor)) throw permissionDenied();
  if (ownerId !== actor.id && !canManageUsers(actor)) throw permissionDenied();
  const owner = read?.id === ownerId ? read : await requireUser(users, ownerId);
  return { owner, ownerActor: actorFor(owner, actor.credential) };
}

/** The stored lookup digest of a key secret: sha256(md5hex(secret)). */
export function lookupOfSecret(secrets: SecretGenerator, secret: string): string {
  return lookupOfMd5(secrets, secrets.md5Hex(secret));
}

/** The lookup digest from the lowercase hex MD5 of a secret (what KOReader sends as `x-auth-key`). */
export function lookupOfMd5(secrets: SecretGenerator, md5Hex: string): string {
  return secrets.digest(md5Hex.toLowerCase());
}
