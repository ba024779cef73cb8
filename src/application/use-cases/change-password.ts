import type { Actor } from '../../domain/actor.js';
import { actsThroughKey } from '../../domain/api-key.js';
import { permissionDenied, userNotFound } from '../../domain/error-catalogue.js';
import type { Clock, PasswordHasher, UserRepository } from '../ports.js';
import type { Authority } from './authority.js';
import type { CurrentPasswordCheck } from './current-password.js';
import { assertAcceptablePassword } from './password-rules.js';

export interface ChangePasswordInput {
  readonly currentPassword: string;
  readonly newPassword: string;
  /** For the auth event of the current-password check. */
  readonly clientAddress?: string;
}

/**
 * Sets a new password after checking the current one (CurrentPasswordCheck: throttled per account,
 * before bcrypt); every token issued before stops working. Never through a personal API key (403).
 */
export class ChangePassword {
  constructor(
    private readonly hasher: PasswordHasher,
    private readonly users: UserRepository,
    private readonly clock: Clock,
    private readonly current: CurrentPasswordCheck,
    private readonly authority: Authority,
  ) {}

  async execute(actor: Actor, input: ChangePasswordInput): Promise<void> {
    if (actsThroughKey(actor)) throw permissionDenied();
    const { user } = await this.authority.confirm(actor);
    if (!user) throw userNotFound(actor.id);
    await this.current.verify(user, input.currentPassword, input.clientAddress ?? 'unknown');
    assertAcceptablePassword(input.newPassword, 'new_password');
    const passwordHash = await this.hasher.hash(input.newPassword);
    await this.authority.confirm(actor); // the session may have been revoked while the body arrived or bcrypt ran
    if (!(await this.users.setPassword(user.id, passwordHash, this.clock.now()))) throw userNotFound(actor.id);
  }
}
