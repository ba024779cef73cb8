import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type CryptoKey, type JWTPayload } from 'jose';
import { closeServer, listen } from './real-provider.js';

export const HOSTILE_CLIENT_ID = 'stacks-hostile-test';

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;
/** RSA key generation is slow; every provider in a test file shares the same two pairs. */
let keyPairs: Promise<[KeyPair, KeyPair]> | undefined;

/** What the hostile provider's token endpoint signs, and how. */
export interface IdTokenRecipe {
  /** The claims (defaults: iss, sub, aud, iat, exp, nonce and a verified e-mail) after changes. */
  claims(defaults: JWTPayload): JWTPayload;
  /** `good` (the advertised key), `other` (a key not in the JWKS) or `none` (unsigned). */
  readonly signing?: 'good' | 'other' | 'none';
}

/**
 * A small OpenID Provider written to misbehave (built with jose): discovery, JWKS, an authorize
 * endpoint that answers at once, and a token endpoint that answers whatever the test prepares.
 */
export class HostileProvider {
  issuer = '';
  /** When set, every connection is dropped (the provider is down). */
  down = false;
  discovery: (defaults: Record<string, unknown>) => { status: number; body: unknown } = (d) => ({ status: 200, body: d });
  recipe: IdTokenRecipe = { claims: (d) => d };
  /** Overrides the token endpoint's whole answer. */
  tokenAnswer: { status: number; body: unknown } | null = null;
  /** Extra parameters on the redirect back to the client (`iss` for RFC 9207 tests). */
  callbackExtras: Record<string, string> = {};
  /** What the client sent: the authorization request and the token request. */
  lastAuthorization: URLSearchParams | null = null;
  lastTokenRequest: URLSearchParams | null = null;
  private readonly server = createServer((req, res) => void this.handle(req, res));
  private keys!: { good: CryptoKey; other: CryptoKey; jwk: Record<string, unknown> };

  async start(): Promise<this> {
    keyPairs ??= Promise.all([generateKeyPair('RS256'), generateKeyPair('RS256')]);
    const [good, other] = await keyPairs;
    this.keys = { good: good.privateKey, other: other.privateKey, jwk: { ...(await exportJWK(good.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' } };
    this.issuer = `http://127.0.0.1:${await listen(this.server)}`;
    return this;
  }

  close(): Promise<void> {
    return closeServer(this.server);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.down) return void req.socket.destroy();
    const url = new URL(req.url ?? '/', this.issuer);
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/.well-known/openid-configuration') {
      const { status, body } = this.discovery(this.metadata());
      return void json(status, body);
    }
    if (url.pathname === '/jwks') return void json(200, { keys: [this.keys.jwk] });
    if (url.pathname === '/authorize') {
      this.lastAuthorization = url.searchParams;
      const back = new URL(url.searchParams.get('redirect_uri') as string);
      back.searchParams.set('code', 'hostile-code');
      back.searchParams.set('state', url.searchParams.get('state') as string);
      for (const [k, v] of Object.entries(this.callbackExtras)) back.searchParams.set(k, v);
      return void res.writeHead(302, { location: back.href }).end();
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      let raw = '';
      for await (const chunk of req) raw += String(chunk);
      this.lastTokenRequest = new URLSearchParams(raw);
      if (this.tokenAnswer) return void json(this.tokenAnswer.status, this.tokenAnswer.body);
      const verifier = this.lastTokenRequest.get('code_verifier') ?? '';
      const challenge = createHash('sha256').update(verifier).digest('base64url');
      if (challenge !== this.lastAuthorization?.get('code_challenge')) return void json(400, { error: 'invalid_grant' });
      return void json(200, { access_token: 'hostile-access-token', token_type: 'Bearer', expires_in: 300, id_token: await this.idToken() });
    }
    json(404, { error: 'not_found' });
  }

  private metadata(): Record<string, unknown> {
    return {
      issuer: this.issuer,
      authorization_endpoint: `${this.issuer}/authorize`,
      token_endpoint: `${this.issuer}/token`,
      jwks_uri: `${this.issuer}/jwks`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic'],
    };
  }

  private async idToken(): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const defaults: JWTPayload = {
      iss: this.issuer, sub: 'hostile-subject', aud: HOSTILE_CLIENT_ID, iat: now, exp: now + 300,
      nonce: this.lastAuthorization?.get('nonce') ?? undefined, email: 'someone@example.test', email_verified: true,
    };
    const claims = this.recipe.claims(defaults);
    const signing = this.recipe.signing ?? 'good';
    if (signing === 'none') return new UnsecuredJWT(claims).encode();
    return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(signing === 'good' ? this.keys.good : this.keys.other);
  }
}
