import type { Actor } from '../../domain/actor.js';
import { apiKeyNotFound } from '../../domain/error-catalogue.js';
import type { ApiKeyRepository, UserRepository } from '../ports.js';
import { keyOwnerFor } from './api-key-access.js';
import type { Authority } from './authority.js';

export interface RevokeApiKeyInput {
  /** The actor's own id, or any user's for an admin. */
  readonly ownerId: string;
  readonly keyId: string;
}

/** Deletes one of the owner's keys (from a session: never through a key); it stops working on the next request, on every instance. */
export class RevokeApiKey {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly users: UserRepository,
    private readonly authority: Authority,
  ) {}

  async execute(actor: Actor, input: RevokeApiKeyInput): Promise<void> {
    const confirmed = await this.authority.confirm(actor);
    const { owner } = await keyOwnerFor(confirmed.actor, input.ownerId, this.users, confirmed.user);
    if (!(await this.keys.revoke(owner.id, input.keyId))) throw apiKeyNotFound(input.keyId);
  }
}
