import type { Actor } from '../../domain/actor.js';
import { actsThroughKey } from '../../domain/api-key.js';
import { accountDisabled, oidcAccountAlreadyLinked, permissionDenied, userNotFound } from '../../domain/error-catalogue.js';
import type { Authority } from './authority.js';
import type { CurrentPasswordCheck } from './current-password.js';
import type { StartedOidcLogin, StartOidcLogin } from './start-oidc-login.js';

export interface StartOidcLinkInput {
  /** Required of an account with a password (a stolen token alone must not link an identity). */
  readonly currentPassword?: string | undefined;
  readonly returnTo?: string | undefined;
  readonly clientAddress: string;
}

/**
 * Starts linking a single sign-on identity to the signed-in account: a sign-in start (state, nonce,
 * PKCE, browser cookie) whose recorded state names the account and its token version, so that the
 * callback links the identity the provider returns to it, unless the account's sessions were revoked
 * meanwhile. An account with a password must give it (CurrentPasswordCheck: 403
 * `invalid_current_password`, throttled as the password change is). Refused when the account already
 * has an identity, or through a personal API key (a key must never turn into a full sign-in).
 */
export class StartOidcLink {
  constructor(
    private readonly authority: Authority,
    private readonly current: CurrentPasswordCheck,
    private readonly start: StartOidcLogin,
  ) {}

  async execute(actor: Actor, input: StartOidcLinkInput): Promise<StartedOidcLogin> {
    if (actsThroughKey(actor)) throw permissionDenied();
    const { user } = await this.authority.confirm(actor);
    if (!user) throw userNotFound(actor.id);
    if (user.disabled) throw accountDisabled();
    if (user.oidc !== null) throw oidcAccountAlreadyLinked();
    if (user.passwordHash !== null) await this.current.verify(user, input.currentPassword ?? '', input.clientAddress);
    return this.start.execute({ returnTo: input.returnTo, clientAddress: input.clientAddress, link: { userId: user.id, tokenVersion: user.tokenVersion } });
  }
}
