import type { Actor } from '../../domain/actor.js';
import {
  API_KEY_NAME_MAX_LENGTH, API_KEY_PREFIX, actsThroughKey, canonicalPermissions, displayPrefixOf, permissionsNotHeld, type ApiKey,
} from '../../domain/api-key.js';
import { invalidInput, permissionDenied } from '../../domain/error-catalogue.js';
import type { Permission } from '../../domain/permissions.js';
import { isCleanName, NAME_CONTROL_MESSAGE } from '../../domain/text.js';
import type { ApiKeyRepository, Clock, IdGenerator, SecretGenerator, UserRepository } from '../ports.js';
import { keyOwnerFor, lookupOfSecret } from './api-key-access.js';
import type { Authority } from './authority.js';

export interface CreateApiKeyInput {
  /** Whose key: the actor's own id, or any user's for an admin (the CLI). */
  readonly ownerId: string;
  readonly name: string;
  /** Default: every permission the owner holds now. */
  readonly permissions?: readonly Permission[] | undefined;
  readonly expiresAt?: Date | null | undefined;
}

export interface CreatedApiKey {
  readonly key: ApiKey;
  /** `stk_…`, shown this once; only its digest is stored. */
  readonly secret: string;
}

/**
 * Makes a personal API key, from a session only (a key never mints another: 403), never listing a
 * permission its owner lacks now (403); the key's permissions are a ceiling re-checked against the
 * owner on every use. The key records the owner's token version as confirmed at the write, which is
 * the creating token's own version: a key made by a token revoked meanwhile is never stored.
 */
export class CreateApiKey {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly users: UserRepository,
    private readonly secrets: SecretGenerator,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly authority: Authority,
  ) {}

  async execute(actor: Actor, input: CreateApiKeyInput): Promise<CreatedApiKey> {
    if (actsThroughKey(actor)) throw permissionDenied();
    const name = input.name.trim();
    if (name.length === 0 || name.length > API_KEY_NAME_MAX_LENGTH) {
      throw invalidInput('The key needs a name.', [{ field: 'name', message: `must be 1 to ${API_KEY_NAME_MAX_LENGTH} characters` }]);
    }
    if (!isCleanName(name)) throw invalidInput('The key name is invalid.', [{ field: 'name', message: NAME_CONTROL_MESSAGE }]);
    const now = this.clock.now();
    if (input.expiresAt && input.expiresAt.getTime() <= now.getTime()) {
      throw invalidInput('The key would expire before it is used.', [{ field: 'expires_at', message: 'must be in the future' }]);
    }
    // Decided with the account as it is now (the body may have been held while a password changed).
    const confirmed = await this.authority.confirm(actor);
    const { owner, ownerActor } = await keyOwnerFor(confirmed.actor, input.ownerId, this.users, confirmed.user);
    const permissions = canonicalPermissions(input.permissions ?? ownerActor.permissions);
    if (permissionsNotHeld(ownerActor, permissions).length > 0) throw permissionDenied();
    const secret = `${API_KEY_PREFIX}${this.secrets.generate()}`;
    const key: ApiKey = {
      id: this.ids.next(), ownerId: owner.id, name, lookup: lookupOfSecret(this.secrets, secret),
      prefix: displayPrefixOf(secret), permissions, ownerTokenVersion: owner.tokenVersion,
      expiresAt: input.expiresAt ?? null, lastUsedAt: null, createdAt: now,
    };
    await this.keys.create(key);
    return { key, secret };
  }
}
