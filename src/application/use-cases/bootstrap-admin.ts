import { newLocalUser, usernameKey, type User } from '../../domain/user.js';
import type { Clock, IdGenerator, PasswordHasher, UserRepository } from '../ports.js';
import { assertAcceptablePassword } from './password-rules.js';

export interface AdminAccount {
  readonly username: string;
  readonly email?: string | undefined;
  readonly password: string;
}

/** Creates the configured admin at first start; does nothing when that username exists. */
export class BootstrapAdmin {
  constructor(
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  async execute(account: AdminAccount): Promise<User | null> {
    if (await this.users.findByUsername(usernameKey(account.username))) return null;
    assertAcceptablePassword(account.password, 'ADMIN_PASSWORD');
    const user = newLocalUser({
      id: this.ids.next(),
      username: account.username,
      email: account.email ?? `${account.username}@localhost`,
      passwordHash: await this.hasher.hash(account.password),
      roles: ['admin'],
      now: this.clock.now(),
    });
    await this.users.create(user);
    return user;
  }
}
