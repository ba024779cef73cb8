import type { Actor } from '../../domain/actor.js';
import { ConflictError, NotFoundError, PermissionDeniedError } from '../../domain/errors.js';
import { pageOf, type Page, type PageRequest } from '../../domain/page.js';
import type { RoleName } from '../../domain/permissions.js';
import { canManageUsers } from '../../domain/policies.js';
import type { User } from '../../domain/user.js';
import type { Clock, UserRepository } from '../ports.js';

const notFound = (id: string) => new NotFoundError('user_not_found', `No user with id '${id}'.`);

function requireAdmin(actor: Actor): void {
  if (!canManageUsers(actor)) throw new PermissionDeniedError();
}

const isActiveAdmin = (u: User): boolean => !u.disabled && u.roles.includes('admin');

/** Lists every account (admin only). */
export class ListUsers {
  constructor(private readonly users: UserRepository) {}

  async execute(actor: Actor, page: PageRequest): Promise<Page<User>> {
    requireAdmin(actor);
    const { items, total } = await this.users.list(page);
    return pageOf(items, total, page);
  }
}

/** Reads one account (admin only). */
export class GetUser {
  constructor(private readonly users: UserRepository) {}

  async execute(actor: Actor, id: string): Promise<User> {
    requireAdmin(actor);
    const user = await this.users.findById(id);
    if (!user) throw notFound(id);
    return user;
  }
}

export interface UpdateUserInput {
  readonly roles?: readonly RoleName[];
  readonly disabled?: boolean;
}

/** Changes roles or the disabled flag (admin only); the last active admin cannot be removed. */
export class UpdateUser {
  constructor(
    private readonly users: UserRepository,
    private readonly clock: Clock,
  ) {}

  async execute(actor: Actor, id: string, input: UpdateUserInput): Promise<User> {
    requireAdmin(actor);
    const user = await this.users.findById(id);
    if (!user) throw notFound(id);
    const updated: User = {
      ...user,
      roles: input.roles ? [...new Set(input.roles)] : user.roles,
      disabled: input.disabled ?? user.disabled,
      updatedAt: this.clock.now(),
    };
    if (isActiveAdmin(user) && !isActiveAdmin(updated)) await assertAnotherAdmin(this.users, user.id);
    await this.users.update(updated);
    return updated;
  }
}

/** Deletes an account (admin only); its tokens stop working at once. */
export class DeleteUser {
  constructor(private readonly users: UserRepository) {}

  async execute(actor: Actor, id: string): Promise<void> {
    requireAdmin(actor);
    const user = await this.users.findById(id);
    if (!user) throw notFound(id);
    if (isActiveAdmin(user)) await assertAnotherAdmin(this.users, user.id);
    await this.users.delete(id);
  }
}

async function assertAnotherAdmin(users: UserRepository, exceptId: string): Promise<void> {
  const pageSize = 100;
  for (let page = 1; ; page++) {
    const { items, total } = await users.list({ page, pageSize });
    if (items.some((u) => u.id !== exceptId && isActiveAdmin(u))) return;
    if (page * pageSize >= total) break;
  }
  throw new ConflictError('last_admin', 'This is the last active admin; make another admin first.');
}
