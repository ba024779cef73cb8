import type { Actor } from '../../domain/actor.js';
import { isApiKeySecret } from '../../domain/api-key.js';
import { missingToken } from '../../domain/error-catalogue.js';
import type { User } from '../../domain/user.js';
import type { TokenClaims, TokenService } from '../ports.js';
import type { AuthenticateApiKey } from './authenticate-api-key.js';
import type { Authority } from './authority.js';

export interface Authenticated {
  readonly actor: Actor;
  readonly user: User;
  /** The JWT's claims; null when the caller used a personal API key. */
  readonly claims: TokenClaims | null;
}

/**
 * Turns a bearer token (a JWT, or a personal API key `stk_…` when keys are wired) into the caller,
 * reading roles and status from the store every time.
 */
export class Authenticate {
  constructor(
    private readonly tokens: TokenService,
    private readonly authority: Authority,
    private readonly apiKeys: AuthenticateApiKey | null = null,
  ) {}

  async execute(token: string | undefined, clientAddress = 'unknown'): Promise<Authenticated> {
    if (!token) throw missingToken();
    if (this.apiKeys && isApiKeySecret(token)) {
      const { actor, user } = await this.apiKeys.execute({ secret: token }, clientAddress);
      return { actor, user, claims: null };
    }
    const claims = this.tokens.verify(token);
    const { actor, user } = await this.authority.ofToken(claims.userId, { kind: 'token', jti: claims.jti, tokenVersion: claims.tokenVersion });
    return { actor, user, claims };
  }
}
