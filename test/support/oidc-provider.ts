import { createHash } from 'node:crypto';
import type { OidcAuthorizationRequest, OidcCallback, OidcIdentityClaims, OidcProvider } from '../../src/application/ports.js';
import { BadRequestError, type DomainError } from '../../src/domain/errors.js';

export const TEST_ISSUER = 'https://idp.example';

/** Claims as the provider would send them for `subject`; every field overridable. */
export const someClaims = (overrides: Partial<OidcIdentityClaims> = {}): OidcIdentityClaims => ({
  issuer: TEST_ISSUER, subject: 'sub-1', email: null, emailVerified: false, username: null, roles: [], ...overrides,
});

/**
 * An OpenID Provider test double that keeps the protocol's promises: it answers a callback only for
 * a state it issued, with the same nonce and redirect URI and a verifier matching the PKCE challenge.
 */
export class FakeOidcProvider implements OidcProvider {
  /** What the next successful exchange returns. */
  claims: OidcIdentityClaims = someClaims();
  /** When set, every call throws it (provider down or misbehaving). */
  failure: DomainError | null = null;
  private readonly issued = new Map<string, OidcAuthorizationRequest>();

  async authorizationUrl(request: OidcAuthorizationRequest): Promise<string> {
    if (this.failure) throw this.failure;
    this.issued.set(request.state, request);
    const query = new URLSearchParams({ state: request.state, nonce: request.nonce, code_challenge: request.codeChallenge });
    return `${TEST_ISSUER}/authorize?${query}`;
  }

  async exchange(callback: OidcCallback): Promise<OidcIdentityClaims> {
    if (this.failure) throw this.failure;
    const request = this.issued.get(callback.state);
    const challenge = createHash('sha256').update(callback.codeVerifier).digest('base64url');
    const code = new URL(callback.currentUrl).searchParams.get('code');
    if (!request || !code || request.nonce !== callback.nonce || request.codeChallenge !== challenge || request.redirectUri !== callback.redirectUri) {
      throw new BadRequestError('oidc_callback_invalid', 'The provider refused the callback.');
    }
    this.issued.delete(callback.state);
    return this.claims;
  }
}
