import { revokedUntil } from '../../domain/token-revocation.js';
import type { TokenClaims, TokenRevocationRepository } from '../ports.js';

/** Revokes the token the request was made with, for as long as the verifier could still accept it. */
export class Logout {
  constructor(private readonly revocations: TokenRevocationRepository) {}

  async execute(claims: TokenClaims): Promise<void> {
    await this.revocations.revoke(claims.jti, revokedUntil(claims.expiresAt));
  }
}
