import type { Actor } from '../../domain/actor.js';
import { actsThroughKey } from '../../domain/api-key.js';
import { passwordNotSet, permissionDenied, userNotFound } from '../../domain/error-catalogue.js';
import type { Clock, UserRepository } from '../ports.js';
import type { Authority } from './authority.js';
import type { CurrentPasswordCheck } from './current-password.js';

/**
 * Unlinks the signed-in account's single sign-on identity, after its current password
 * (CurrentPasswordCheck); every session of the account ends (token version bump), this one included.
 * An account without a password cannot drop its only way in (409 `password_not_set`). Never through a
 * key (403). An account with no identity is left as it is (the request is idempotent).
 */
export class UnlinkOidc {
  constructor(
    private readonly users: UserRepository,
    private readonly authority: Authority,
    private readonly current: CurrentPasswordCheck,
    private readonly clock: Clock,
  ) {}

  async execute(actor: Actor, input: { currentPassword: string; clientAddress: string }): Promise<void> {
    if (actsThroughKey(actor)) throw permissionDenied();
    const { user } = await this.authority.confirm(actor);
    if (!user) throw userNotFound(actor.id);
    if (!user.passwordHash) throw passwordNotSet();
    await this.current.verify(user, input.currentPassword, input.clientAddress);
    await this.authority.confirm(actor);
    await this.users.unlinkOidcIdentity(user.id, this.clock.now());
  }
}
