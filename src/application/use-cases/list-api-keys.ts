import type { Actor } from '../../domain/actor.js';
import type { ApiKey } from '../../domain/api-key.js';
import { pageOf, type Page, type PageRequest } from '../../domain/page.js';
import type { ApiKeyRepository, UserRepository } from '../ports.js';
import { keyOwnerFor } from './api-key-access.js';

export interface ListApiKeysInput {
  /** The actor's own id, or any user's for an admin. */
  readonly ownerId: string;
  readonly page: PageRequest;
}

/** One page of a user's API keys, newest first (never a secret: none is stored). */
export class ListApiKeys {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly users: UserRepository,
  ) {}

  async execute(actor: Actor, input: ListApiKeysInput): Promise<Page<ApiKey>> {
    const { owner } = await keyOwnerFor(actor, input.ownerId, this.users);
    const { items, total } = await this.keys.listByOwner(owner.id, input.page);
    return pageOf(items, total, input.page);
  }
}
