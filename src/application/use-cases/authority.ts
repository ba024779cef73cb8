import { actorFor, type Actor, type Credential } from '../../domain/actor.js';
import { actorThroughKey, keyWorksFor } from '../../domain/api-key.js';
import { invalidToken } from '../../domain/error-catalogue.js';
import { koboDeviceWorksFor } from '../../domain/kobo-device.js';
import { tokenStillAccepted } from '../../domain/token-revocation.js';
import type { User } from '../../domain/user.js';
import type { ApiKeyRepository, Clock, KoboDeviceRepository, UserRepository } from '../ports.js';

/** The actor as the store says it may act now, and its account as read for that. */
export interface ConfirmedActor {
  readonly actor: Actor;
  /** The account read just now; null for the operator (the command line), who is no account. */
  readonly user: User | null;
}

/**
 * Authority judged when a write commits, not only when the request's headers arrived: every use case
 * that writes on behalf of an actor calls `confirm` just before its write and decides with the actor it
 * returns. A token revoked meanwhile (logout, password change or reset, disabling, deletion, linking or
 * unlinking sign-on) or expired, a key revoked or expired, or a Kobo device removed is 401 `invalid_token`; permissions come from the
 * account's roles now (and the key's ceiling), so a shrunk role makes the use case's own check refuse.
 */
export class Authority {
  constructor(
    private readonly users: UserRepository,
    private readonly apiKeys: ApiKeyRepository,
    private readonly clock: Clock,
    private readonly koboDevices: KoboDeviceRepository,
  ) {}

  async confirm(actor: Actor): Promise<ConfirmedActor> {
    const { credential } = actor;
    switch (credential.kind) {
      case 'operator':
        return { actor, user: null };
      case 'token':
        return this.ofToken(actor.id, credential);
      case 'key': {
        const key = await this.apiKeys.findByLookup(credential.lookup);
        const user = key?.id === credential.keyId ? await this.users.findById(key.ownerId) : null;
        if (!key || !user || user.id !== actor.id || !keyWorksFor(key, user, this.clock.now())) throw invalidToken();
        return { actor: actorThroughKey(user, key), user };
      }
      case 'kobo': {
        const device = await this.koboDevices.findByLookup(credential.lookup);
        const user = device?.id === credential.deviceId ? await this.users.findById(device.ownerId) : null;
        if (!device || !user || user.id !== actor.id || !koboDeviceWorksFor(device, user)) throw invalidToken();
        return { actor: actorFor(user, credential), user };
      }
    }
  }

  /**
   * The account a token names, acting with it: 401 when the token is expired or revoked or the account
   * gone, disabled or re-versioned. One store read (the account, unless the token id is revoked), on every request.
   */
  async ofToken(userId: string, credential: Extract<Credential, { kind: 'token' }>): Promise<{ actor: Actor; user: User }> {
    if (credential.expiresAt && !tokenStillAccepted(credential.expiresAt, this.clock.now())) throw invalidToken();
    const user = await this.users.findActiveSession(userId, credential.jti);
    if (!user || user.disabled || user.tokenVersion !== credential.tokenVersion) throw invalidToken();
    return { actor: actorFor(user, credential), user };
  }
}
