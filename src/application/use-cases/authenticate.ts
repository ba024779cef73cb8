import type { Actor } from '../../domain/actor.js';
import { isApiKeySecret } from '../../domain/api-key.js';
import { invalidToken, missingToken } from '../../domain/error-catalogue.js';
import type { User } from '../../domain/user.js';
import type { TokenClaims, TokenService } from '../ports.js';
import type { AuthenticateApiKey } from './authenticate-api-key.js';
import type { AuthEvents } from './auth-events.js';
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
    private readonly events: AuthEvents | null = null,
  ) {}

  async execute(token: string | undefined, clientAddress = 'unknown'): Promise<Authenticated> {
    if (!token) throw missingToken();
    if (this.apiKeys && isApiKeySecret(token)) return this.withKey(token, clientAddress);
    const claims = this.tokens.verify(token);
    const { actor, user } = await this.authority.ofToken(claims.userId, { kind: 'token', jti: claims.jti, tokenVersion: claims.tokenVersion, expiresAt: claims.expiresAt });
    return { actor, user, claims };
  }

  /**
   * A personal API key, as a bearer or (`opds_key`) as the OPDS Basic password of the account named: a
   * check of a secret, so one auth event each time.
   */
  async withKey(secret: string, clientAddress: string, use: { method: 'api_key' | 'opds_key'; username?: string } = { method: 'api_key' }): Promise<Authenticated> {
    if (!this.apiKeys) throw invalidToken();
    try {
      const { actor, user } = await this.apiKeys.execute({ secret }, clientAddress, use.username === undefined ? {} : { username: use.username });
      this.events?.succeeded(use.method, user.id, clientAddress);
      return { actor, user, claims: null };
    } catch (error) {
      this.events?.failed(use.method, use.username === undefined ? null : { login: use.username }, clientAddress, error);
      throw error;
    }
  }
}
