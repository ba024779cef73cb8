import type { Actor } from '../../domain/actor.js';
import { pageOf, type Page, type PageRequest } from '../../domain/page.js';
import type { UserRepository } from '../ports.js';
import type { AccountLockout } from './account-lockout.js';
import { managed, requireUserAdmin, type ManagedUser } from './user-admin.js';

/** Lists every account (admin only), each with when its sign-in block ends. */
export class ListUsers {
  constructor(
    private readonly users: UserRepository,
    private readonly lockout: AccountLockout,
  ) {}

  async execute(actor: Actor, page: PageRequest): Promise<Page<ManagedUser>> {
    requireUserAdmin(actor);
    const { items, total } = await this.users.list(page);
    return pageOf(await Promise.all(items.map((user) => managed(this.lockout, user))), total, page);
  }
}
