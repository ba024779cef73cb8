import type { Actor } from '../../domain/actor.js';
import { pageOf, type Page, type PageRequest } from '../../domain/page.js';
import type { User } from '../../domain/user.js';
import type { UserRepository } from '../ports.js';
import { requireUserAdmin } from './user-admin.js';

/** Lists every account (admin only). */
export class ListUsers {
  constructor(private readonly users: UserRepository) {}

  async execute(actor: Actor, page: PageRequest): Promise<Page<User>> {
    requireUserAdmin(actor);
    const { items, total } = await this.users.list(page);
    return pageOf(items, total, page);
  }
}
