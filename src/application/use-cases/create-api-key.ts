import type { Actor } from '../../domain/actor.js';
import {
  API_KEY_NAME_MAX_LENGTH, API_KEY_PREFIX, actsThroughKey, canonicalPermissions, displayPrefixOf, permissionsNotHeld, type ApiKey,
} from '../../domain/api-key.js';
import { invalidInput, permissionDenied } from '../../domain/error-catalogue.js';
import type { Permission } from '../../domain/permissions.js';
import type { ApiKeyRepository, Clock, IdGenerator, SecretGenerator, UserRepository } from '../ports.js';
import { keyOwnerFor, lookupOfSecret } from './api-key-access.js';

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
 * Makes a personal API key. A key never mints another (403), and never lists a permission its owner
 * lacks now (403); the key's permissions are a ceiling re-checked against the owner on every use.
 */
export class CreateApiKey {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly users: UserRepository,
    private readonly secrets: SecretGenerator,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async execute(actor: Actor, input: CreateApiKeyInput): Promise<CreatedApiKey> {
    if (actsThroughKey(actor)) throw permissionDenied();
    const { owner, ownerActor } = await keyOwnerFor(actor, input.ownerId, this.users);
    const name = input.name.trim();
    if (name.length === 0 || name.length > API_KEY_NAME_MAX_LENGTH) {
      throw invalidInput('The key needs a name.', [{ field: 'name', message: `must be 1 to ${API_KEY_NAME_MAX_LENGTH} characters` }]);
    }
    const now = this.clock.now();
    if (input.expiresAt && input.expiresAt.getTime() <= now.getTime()) {
      throw invalidInput('The key would expire before it is used.', [{ field: 'expires_at', message: 'must be in the future' }]);
    }
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
