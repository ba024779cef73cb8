import { actorFor, type Actor } from '../../domain/actor.js';
import { invalidToken, missingToken } from '../../domain/error-catalogue.js';
import type { User } from '../../domain/user.js';
import type { TokenClaims, TokenRevocationRepository, TokenService, UserRepository } from '../ports.js';

export interface Authenticated {
  readonly actor: Actor;
  readonly user: User;
  readonly claims: TokenClaims;
}

const invalid = invalidToken;

/** Turns a bearer token into the caller, reading roles and status from the store every time. */
export class Authenticate {
  constructor(
    private readonly tokens: TokenService,
    private readonly revocations: TokenRevocationRepository,
    private readonly users: UserRepository,
  ) {}

  async execute(token: string | undefined): Promise<Authenticated> {
    if (!token) throw missingToken();
    const claims = this.tokens.verify(token);
    if (await this.revocations.isRevoked(claims.jti)) throw invalid();
    const user = await this.users.findById(claims.userId);
    if (!user || user.disabled || user.tokenVersion !== claims.tokenVersion) throw invalid();
    return { actor: actorFor(user), user, claims };
  }
}
