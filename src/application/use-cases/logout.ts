import type { TokenClaims, TokenRevocationRepository } from '../ports.js';

/** Revokes the token the request was made with. */
export class Logout {
  constructor(private readonly revocations: TokenRevocationRepository) {}

  async execute(claims: TokenClaims): Promise<void> {
    await this.revocations.revoke(claims.jti, claims.expiresAt);
  }
}
