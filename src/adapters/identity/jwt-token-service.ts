import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import type { Clock, IdGenerator, IssuedToken, TokenClaims, TokenService } from '../../application/ports.js';
import type { User } from '../../domain/user.js';
import { invalidToken } from '../../domain/error-catalogue.js';
import { TOKEN_CLOCK_TOLERANCE_SECONDS } from '../../domain/token-revocation.js';

export interface JwtTokenServiceOptions {
  readonly secret: string;
  readonly expiresInSeconds: number;
  readonly issuer?: string;
  readonly audience?: string;
  readonly clock: Clock;
  /** Supplies `jti`; production passes RandomIdGenerator (128 random bits). */
  readonly ids: IdGenerator;
}

const ALGORITHM = 'HS256';
const MAX_TOKEN_LENGTH = 4096;
const MIN_SECRET_BYTES = 32;

/** Tokens kept as verified at most; past it the oldest is forgotten (and verified again if it comes back). */
export const VERIFIED_TOKENS_KEPT = 10_000;

/** A token whose signature and claims checked out: what remains to check each time is only the clock. */
interface VerifiedToken {
  readonly claims: TokenClaims;
  readonly issuedAt: number;
  readonly notBefore: number | undefined;
  readonly expires: number;
}

const isNonEmptyString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

/** Issues and verifies the service's own HS256 access tokens (algorithm, iss, aud and exp pinned). */
export class JwtTokenService implements TokenService {
  private readonly issuer: string;
  private readonly audience: string;
  /** A KeyObject, not the string: given a string, jsonwebtoken first tries it as a public key on every call. */
  private readonly key: KeyObject;
  /**
   * Verified tokens by their exact text (signature included): the same string again skips the HMAC and
   * JSON parsing, never the time checks, and never the revocation and account checks, which are the
   * caller's and read the store every time. A string differing in any character is verified in full.
   */
  private readonly verified = new Map<string, VerifiedToken>();

  constructor(private readonly options: JwtTokenServiceOptions) {
    if (Buffer.byteLength(options.secret) < MIN_SECRET_BYTES) throw new Error('JWT secret must be at least 32 bytes');
    if (!Number.isSafeInteger(options.expiresInSeconds) || options.expiresInSeconds <= 0) {
      throw new Error('JWT lifetime must be a positive whole number of seconds');
    }
    this.key = createSecretKey(Buffer.from(options.secret, 'utf8'));
    this.issuer = options.issuer ?? 'stacks';
    this.audience = options.audience ?? 'stacks';
  }

  issue(user: User): IssuedToken {
    const iat = this.nowSeconds();
    const jti = this.options.ids.next();
    const expiresIn = this.options.expiresInSeconds;
    const payload = { sub: user.id, jti, tv: user.tokenVersion, iat, exp: iat + expiresIn, iss: this.issuer, aud: this.audience };
    const token = jwt.sign(payload, this.key, { algorithm: ALGORITHM, header: { alg: ALGORITHM, typ: 'JWT' } });
    return { token, jti, expiresIn };
  }

  verify(token: string): TokenClaims {
    if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH) throw invalidToken();
    const now = this.nowSeconds();
    const known = this.verified.get(token);
    if (known) {
      if (!inTime(known, now)) throw invalidToken();
      return known.claims;
    }
    const verified = this.verifyInFull(token, now);
    if (this.verified.size >= VERIFIED_TOKENS_KEPT) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(token, verified);
    return verified.claims;
  }

  private verifyInFull(token: string, now: number): VerifiedToken {
    let payload: unknown;
    try {
      payload = jwt.verify(token, this.key, {
        algorithms: [ALGORITHM],
        issuer: this.issuer,
        audience: this.audience,
        clockTolerance: TOKEN_CLOCK_TOLERANCE_SECONDS,
        clockTimestamp: now,
      });
    } catch {
      throw invalidToken();
    }
    if (typeof payload !== 'object' || payload === null) throw invalidToken();
    const { sub, jti, iat, exp, tv, nbf } = payload as Record<string, unknown>;
    if (!isNonEmptyString(sub) || !isNonEmptyString(jti)) throw invalidToken();
    if (!Number.isSafeInteger(exp) || !Number.isSafeInteger(iat) || !Number.isSafeInteger(tv)) throw invalidToken();
    if ((iat as number) > now + TOKEN_CLOCK_TOLERANCE_SECONDS || (tv as number) < 0) throw invalidToken();
    const claims = { userId: sub, jti, tokenVersion: tv as number, expiresAt: new Date((exp as number) * 1000) };
    return { claims, issuedAt: iat as number, notBefore: typeof nbf === 'number' ? nbf : undefined, expires: exp as number };
  }

  private nowSeconds(): number {
    return Math.floor(this.options.clock.now().getTime() / 1000);
  }
}

/** The time checks of a full verification (jsonwebtoken's, with the same tolerance), for a token verified before. */
function inTime(token: VerifiedToken, now: number): boolean {
  const tolerance = TOKEN_CLOCK_TOLERANCE_SECONDS;
  return now < token.expires + tolerance && token.issuedAt <= now + tolerance && (token.notBefore === undefined || token.notBefore <= now + tolerance);
}
