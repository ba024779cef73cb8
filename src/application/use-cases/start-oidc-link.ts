import type { Actor } from '../../domain/actor.js';
import { actsThroughKey } from '../../domain/api-key.js';
import { accountDisabled, oidcAccountAlreadyLinked, permissionDenied, userNotFound } from '../../domain/error-catalogue.js';
import type { UserRepository } from '../ports.js';
import type { StartedOidcLogin, StartOidcLogin } from './start-oidc-login.js';

export interface StartOidcLinkInput {
  readonly returnTo?: string | undefined;
  readonly clientAddress: string;
}

/**
 * Starts linking a single sign-on identity to the signed-in account: a sign-in start (state, nonce,
 * PKCE, browser cookie) whose recorded state names the account, so that the callback links the
 * identity the provider returns to it. Refused when the account already has an identity, or
 * through a personal API key (a key must not turn into a full sign-in).
 */
export class StartOidcLink {
  constructor(
    private readonly users: UserRepository,
    private readonly start: StartOidcLogin,
  ) {}

  async execute(actor: Actor, input: StartOidcLinkInput): Promise<StartedOidcLogin> {
    if (actsThroughKey(actor)) throw permissionDenied();
    const user = await this.users.findById(actor.id);
    if (!user) throw userNotFound(actor.id);
    if (user.disabled) throw accountDisabled();
    if (user.oidc !== null) throw oidcAccountAlreadyLinked();
    return this.start.execute({ returnTo: input.returnTo, clientAddress: input.clientAddress, linkUserId: user.id });
  }
}
