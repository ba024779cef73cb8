import * as client from 'openid-client';
import type { OidcAuthorizationRequest, OidcCallback, OidcIdentityClaims, OidcProvider } from '../../application/ports.js';
import { oidcCallbackInvalid, oidcProviderError, oidcUnavailable } from '../../domain/error-catalogue.js';
import { DomainError } from '../../domain/errors.js';
import { identityClaimsFrom } from './oidc-claims.js';

export interface OpenIdClientProviderOptions {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string | undefined;
  readonly scopes: string;
  readonly rolesClaim: string | undefined;
  /** Plain-http issuer (configuration only allows it on loopback). */
  readonly allowHttp: boolean;
  /** Per-request timeout towards the provider; default 10 s. */
  readonly timeoutSeconds?: number;
}

/** Answers from the provider that are its fault, not the browser's. */
const PROVIDER_FAULTS = new Set(['OAUTH_RESPONSE_IS_NOT_CONFORM', 'OAUTH_RESPONSE_IS_NOT_JSON', 'OAUTH_PARSE_ERROR']);
const UNREACHABLE = new Set(['OAUTH_TIMEOUT', 'OAUTH_ABORT']);
/** An ID token is minted at the code exchange; one issued longer ago than a sign-in may take is stale. */
const MAX_ID_TOKEN_AGE_SECONDS = 600;

const unavailable = oidcUnavailable;
const providerError = oidcProviderError;
const badCallback = oidcCallbackInvalid;

function isUnreachable(error: unknown): boolean {
  if (error instanceof client.ClientError) return UNREACHABLE.has(error.code ?? '');
  return error instanceof TypeError && error.message === 'fetch failed';
}

/** Discovery failures: unreachable is 503; anything else (bad document, issuer mismatch) is 502. */
function discoveryError(error: unknown): DomainError {
  return isUnreachable(error) ? unavailable() : providerError();
}

/** Code-exchange failures: unreachable 503, the provider's own faults 502, everything else a bad callback. */
function exchangeError(error: unknown): DomainError {
  if (error instanceof DomainError) return error;
  if (isUnreachable(error)) return unavailable();
  if (error instanceof client.AuthorizationResponseError) return badCallback();
  if (error instanceof client.ResponseBodyError) return error.status >= 500 ? providerError() : badCallback();
  if (error instanceof client.ClientError && PROVIDER_FAULTS.has(error.code ?? '')) return providerError();
  return badCallback();
}

/**
 * OidcProvider on openid-client: authorization code flow with PKCE (S256), state and nonce, the ID
 * token required and fully validated, its signature included (against the provider's JWKS). Discovery runs on first use, is cached, and is retried after a
 * failure, so a provider outage never stops the service from starting.
 */
export class OpenIdClientProvider implements OidcProvider {
  private configuration: Promise<client.Configuration> | null = null;

  constructor(private readonly options: OpenIdClientProviderOptions) {}

  async authorizationUrl(request: OidcAuthorizationRequest): Promise<string> {
    const config = await this.discovered();
    return client.buildAuthorizationUrl(config, {
      redirect_uri: request.redirectUri,
      scope: this.options.scopes,
      state: request.state,
      nonce: request.nonce,
      code_challenge: request.codeChallenge,
      code_challenge_method: 'S256',
    }).href;
  }

  async exchange(callback: OidcCallback): Promise<OidcIdentityClaims> {
    const config = await this.discovered();
    const currentUrl = new URL(callback.currentUrl);
    if (`${currentUrl.origin}${currentUrl.pathname}` !== callback.redirectUri) throw badCallback();
    try {
      const tokens = await client.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: callback.codeVerifier,
        expectedState: callback.state,
        expectedNonce: callback.nonce,
        idTokenExpected: true,
      });
      const idToken = tokens.claims();
      if (!idToken || idToken.iat < Date.now() / 1000 - MAX_ID_TOKEN_AGE_SECONDS) throw badCallback();
      const userInfo = config.serverMetadata().userinfo_endpoint
        ? await client.fetchUserInfo(config, tokens.access_token, idToken.sub)
        : {};
      return identityClaimsFrom({ ...userInfo, ...idToken }, this.options.rolesClaim);
    } catch (error) {
      throw exchangeError(error);
    }
  }

  private discovered(): Promise<client.Configuration> {
    this.configuration ??= this.discover().catch((error: unknown) => {
      this.configuration = null;
      throw discoveryError(error);
    });
    return this.configuration;
  }

  private discover(): Promise<client.Configuration> {
    const { issuer, clientId, clientSecret, allowHttp } = this.options;
    const auth = clientSecret ? client.ClientSecretBasic(clientSecret) : client.None();
    return client.discovery(new URL(issuer), clientId, clientSecret, auth, {
      execute: allowHttp ? [client.allowInsecureRequests, client.enableNonRepudiationChecks] : [client.enableNonRepudiationChecks],
      timeout: this.options.timeoutSeconds ?? 10,
    });
  }
}
