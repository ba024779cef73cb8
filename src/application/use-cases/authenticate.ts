import { actorFor, type Actor } from '../../domain/actor.js';
import { isApiKeySecret } from '../../domain/api-key.js';
import { invalidToken, missingToken } from '../../domain/error-catalogue.js';
import type { User } from '../../domain/user.js';
import type { TokenClaims, TokenRevocationRepository, TokenService, UserRepository } from '../ports.js';
import type { AuthenticateApiKey } from './authenticate-api-key.js';

export interface Authenticated {
  readonly actor: Actor;
  readonly user: User;
  /** The JWT's claims; null when the caller used a personal API key. */
  readonly claims: TokenClaims | null;
}

const invalid = invalidToken;

/**
 * Turns a bearer token (a JWT, or a personal API key `stk_…` when keys are wired) into the caller,
 * reading roles and status from the store every time.
 */
export class Authenticate {
  constructor(
    private readonly tokens: TokenService,
    private readonly revocations: TokenRevocationRepository,
    private readonly users: UserRepository,
    private readonly apiKeys: AuthenticateApiKey | null = null,
  ) {}

  async execute(token: string | undefined, clientAddress = 'unknown'): Promise<Authenticated> {
    if (!token) throw missingToken();
    if (this.apiKeys && isApiKeySecret(token)) {
      const { actor, user } = await this.apiKeys.execute({ secret: token }, clientAddress);
      return { actor, user, claims: null };
    }
    const claims = this.tokens.verify(token);
    if (await this.revocations.isRevoked(claims.jti)) throw invalid();
    const user = await this.users.findById(claims.userId);
    if (!user || user.disabled || user.tokenVersion !== claims.tokenVersion) throw invalid();
    return { actor: actorFor(user), user, claims };
  }
}
