import { hasCodeOf, lastAdmin, localLoginDisabled, registrationClosed } from '../../domain/error-catalogue.js';
import type { RoleName } from '../../domain/permissions.js';
import { newLocalUser, type User } from '../../domain/user.js';
import type { Clock, IdGenerator, IssuedToken, PasswordHasher, TokenService, UserRepository } from '../ports.js';
import { assertAcceptablePassword } from './password-rules.js';

export interface RegistrationSettings {
  readonly registrationOpen: boolean;
  readonly localLogin: boolean;
  readonly defaultRole: RoleName;
  /** When no bootstrap admin is configured, the first account ever registered becomes admin. */
  readonly firstUserBecomesAdmin: boolean;
}

export interface RegisterInput {
  readonly username: string;
  readonly email: string;
  readonly password: string;
}

/** Creates a local account with the default role and signs it in. */
export class RegisterUser {
  constructor(
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly tokens: TokenService,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly settings: RegistrationSettings,
  ) {}

  async execute(input: RegisterInput): Promise<{ user: User; token: IssuedToken }> {
    if (!this.settings.localLogin) throw localLoginDisabled();
    if (!this.settings.registrationOpen) throw registrationClosed();
    assertAcceptablePassword(input.password, 'password');
    const passwordHash = await this.hasher.hash(input.password);
    const first = this.settings.firstUserBecomesAdmin && (await this.users.count()) === 0;
    let user = newLocalUser({
      id: this.ids.next(),
      username: input.username,
      email: input.email,
      passwordHash,
      roles: [first ? 'admin' : this.settings.defaultRole],
      now: this.clock.now(),
    });
    await this.users.create(user);
    if (first) user = await this.demoteUnlessFirst(user);
    return { user, token: this.tokens.issue(user) };
  }

  /** Two concurrent "first" registrations: only the earliest account keeps admin (unless it is the only active one). */
  private async demoteUnlessFirst(user: User): Promise<User> {
    const { items } = await this.users.list({ page: 1, pageSize: 1 });
    if (items[0]?.id === user.id) return user;
    try {
      return (await this.users.updateAccess(user.id, { roles: [this.settings.defaultRole] }, this.clock.now())) ?? user;
    } catch (error) {
      if (hasCodeOf(error, lastAdmin)) return user;
      throw error;
    }
  }
}
