import { localLoginDisabled, registrationClosed } from '../../domain/error-catalogue.js';
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
    const user = newLocalUser({
      id: this.ids.next(),
      username: input.username,
      email: input.email,
      passwordHash,
      roles: [this.settings.defaultRole],
      now: this.clock.now(),
    });
    const stored = await this.store(user);
    return { user: stored, token: this.tokens.issue(stored) };
  }

  /** The first-user rule is decided by the store in the insert itself, so concurrent first registrations make one admin. */
  private async store(user: User): Promise<User> {
    if (this.settings.firstUserBecomesAdmin) return this.users.createAdminIfFirst(user);
    await this.users.create(user);
    return user;
  }
}
