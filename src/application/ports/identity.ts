import type { User } from '../../domain/user.js';

// The identity ports: password hashing, tokens, single sign-on and secrets.

export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** Compares against a dummy hash when hash is null, so timing does not reveal absence. */
  verify(password: string, hash: string | null): Promise<boolean>;
}

export interface IssuedToken {
  readonly token: string;
  readonly jti: string;
  readonly expiresIn: number;
}

export interface TokenClaims {
  readonly userId: string;
  readonly jti: string;
  readonly tokenVersion: number;
  readonly expiresAt: Date;
}

export interface TokenService {
  issue(user: User): IssuedToken;
  /** Throws AuthenticationError `invalid_token` for anything not issued by us and unexpired. */
  verify(token: string): TokenClaims;
}

/** What the OpenID Provider says about the person who signed in, validated and length-capped. */
export interface OidcIdentityClaims {
  readonly issuer: string;
  readonly subject: string;
  /** Lower-cased; null when absent or not a usable address. */
  readonly email: string | null;
  /** True only when the provider asserts `email_verified: true`. */
  readonly emailVerified: boolean;
  /** `preferred_username` as given (not yet made a valid username); null when absent. */
  readonly username: string | null;
  /** The string values of the configured roles claim; empty when none. */
  readonly roles: readonly string[];
}

export interface OidcAuthorizationRequest {
  readonly state: string;
  readonly nonce: string;
  /** The PKCE S256 challenge of the code verifier. */
  readonly codeChallenge: string;
  readonly redirectUri: string;
}

export interface OidcCallback {
  /** The callback URL as the provider redirected to it, query included. */
  readonly currentUrl: string;
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
  readonly redirectUri: string;
}

/**
 * The OpenID Provider (authorization code flow with PKCE). Throws UnavailableError `oidc_unavailable`
 * when it cannot be reached, BadGatewayError `oidc_provider_error` when it answers badly, and
 * BadRequestError `oidc_callback_invalid` for a bad callback, state, code or ID token.
 */
export interface OidcProvider {
  /** The provider's authorization endpoint URL for this request. */
  authorizationUrl(request: OidcAuthorizationRequest): Promise<string>;
  /** Validates the callback, trades the code and returns the validated identity claims. */
  exchange(callback: OidcCallback): Promise<OidcIdentityClaims>;
}

/** Random secrets and digests, so the core needs no crypto module. */
export interface SecretGenerator {
  /** A fresh base64url string carrying 256 random bits. */
  generate(): string;
  /** The base64url SHA-256 digest of value (PKCE S256 challenges, stored code hashes). */
  digest(value: string): string;
  /**
   * A short keyed digest of value for logs: the same value gets the same tag, and nobody without the key
   * (never logged) can tell what it was, so a mistyped password in a login field cannot be read back.
   */
  tag(value: string): string;
  /** The lowercase hex MD5 of value's UTF-8 bytes (what KOReader sends as its sync key). */
  md5Hex(value: string): string;
  /** The lowercase hex MD5 of the parts' bytes, in order (KOReader's document digest). */
  md5HexOfBytes(parts: readonly Uint8Array[]): string;
}
