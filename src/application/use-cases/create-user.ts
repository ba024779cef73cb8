import type { Actor } from '../../domain/actor.js';
import { invalidInput, permissionDenied } from '../../domain/error-catalogue.js';
import type { RoleName } from '../../domain/permissions.js';
import { canManageUsers } from '../../domain/policies.js';
import { newLocalUser, USERNAME_PATTERN, type User } from '../../domain/user.js';
import type { Clock, IdGenerator, PasswordHasher, UserRepository } from '../ports.js';
import type { Authority } from './authority.js';
import { assertAcceptablePassword } from './password-rules.js';

export interface CreateUserInput {
  readonly username: string;
  readonly email: string;
  readonly password: string;
  readonly roles: readonly RoleName[];
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * Creates a local account with the given roles (admin only). Unlike RegisterUser it ignores the
 * REGISTRATION and LOCAL_LOGIN settings: it is how an operator adds people to a closed library.
 */
export class CreateUser {
  constructor(
    private readonly users: UserRepository,
    private readonly hasher: PasswordHasher,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly authority: Authority,
  ) {}

  async execute(actor: Actor, input: CreateUserInput): Promise<User> {
    if (!canManageUsers(actor)) throw permissionDenied();
    const problems = [
      ...(USERNAME_PATTERN.test(input.username) ? [] : [{ field: 'username', message: 'must be 3-50 letters, digits, ., _ or -' }]),
      ...(EMAIL.test(input.email.trim()) ? [] : [{ field: 'email', message: 'must be an e-mail address' }]),
      ...(input.roles.length > 0 ? [] : [{ field: 'roles', message: 'must name at least one role' }]),
    ];
    if (problems.length > 0) throw invalidInput('The account details are invalid.', problems);
    assertAcceptablePassword(input.password, 'password');
    const user = newLocalUser({
      id: this.ids.next(),
      username: input.username,
      email: input.email,
      passwordHash: await this.hasher.hash(input.password),
      roles: input.roles,
      now: this.clock.now(),
    });
    if (!canManageUsers((await this.authority.confirm(actor)).actor)) throw permissionDenied();
    await this.users.create(user);
    return user;
  }
}
