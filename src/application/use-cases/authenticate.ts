import { actorFor, type Actor } from '../../domain/actor.js';
import { AuthenticationError } from '../../domain/errors.js';
import type { User } from '../../domain/user.js';
import type { TokenClaims, TokenRevocationRepository, TokenService, UserRepository } from '../ports.js';

export interface Authenticated {
  readonly actor: Actor;
  readonly user: User;
  readonly claims: TokenClaims;
}

const invalid = () => new AuthenticationError('invalid_token', 'The token is invalid, expired or revoked.');

/** Turns a bearer token into the caller, reading roles and status from the store every time. */
export class Authenticate {
  constructor(
    private readonly tokens: TokenService,
    private readonly revocations: TokenRevocationRepository,
    private readonly users: UserRepository,
  ) {}

  async execute(token: string | undefined): Promise<Authenticated> {
    if (!token) throw new AuthenticationError('missing_token', 'A bearer token is required.');
    const claims = this.tokens.verify(token);
    if (await this.revocations.isRevoked(claims.jti)) throw invalid();
    const user = await this.users.findById(claims.userId);
    if (!user || user.disabled || user.tokenVersion !== claims.tokenVersion) throw invalid();
    return { actor: actorFor(user), user, claims };
  }
}
