import type { Actor } from '../../domain/actor.js';
import { apiKeyNotFound } from '../../domain/error-catalogue.js';
import type { ApiKeyRepository, UserRepository } from '../ports.js';
import { keyOwnerFor } from './api-key-access.js';

export interface RevokeApiKeyInput {
  /** The actor's own id, or any user's for an admin. */
  readonly ownerId: string;
  readonly keyId: string;
}

/** Deletes one of the owner's keys; it stops working on the next request, on every instance. */
export class RevokeApiKey {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly users: UserRepository,
  ) {}

  async execute(actor: Actor, input: RevokeApiKeyInput): Promise<void> {
    const { owner } = await keyOwnerFor(actor, input.ownerId, this.users);
    if (!(await this.keys.revoke(owner.id, input.keyId))) throw apiKeyNotFound(input.keyId);
  }
}
