import { ConflictError } from '../../domain/errors.js';
import { newLocalUser, usernameKey, type User } from '../../domain/user.js';
import type { Clock, IdGenerator, PasswordHasher, UserRepository } from '../ports.js';
import { assertAcceptablePassword } from './password-rules.js';

export interface AdminAccount {
  readonly username: string;
  readonly email?: string | undefined;
  readonly password: string;
}

/** Looks for the account another instance created this many times after our insert collided with it. */
const LOOKUPS_AFTER_COLLISION = 5;

/**
 * Creates the configured admin at first start; does nothing when that username exists. Two instances
 * starting together both try: the one whose insert collides finds the other's account and returns null.
 */
export class BootstrapAdmin {
  constructor(
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly pause: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
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
    try {
      await this.users.create(user);
    } catch (error) {
      // The username's or the e-mail's unique index may report the collision: the account being there decides.
      if (error instanceof ConflictError && (await this.createdElsewhere(account.username))) return null;
      throw error;
    }
    return user;
  }

  /** A store reading at majority can lag the winner's write for a moment, so a miss is asked again a few times. */
  private async createdElsewhere(username: string): Promise<boolean> {
    for (let attempt = 0; attempt < LOOKUPS_AFTER_COLLISION; attempt++) {
      if (await this.users.findByUsername(usernameKey(username))) return true;
      await this.pause(100 * (attempt + 1));
    }
    return false;
  }
}
