import { hkdfSync } from 'node:crypto';
import type { Request, Response } from 'express';
import jwt from 'jsonwebtoken';
import { z } from 'zod';
import type { OidcLoginBinding } from '../../application/use-cases/start-oidc-login.js';

export interface OidcStateCookieOptions {
  /** The service's JWT secret; the cookie key is derived from it (HKDF), never the secret itself. */
  readonly secret: string;
  /** Set when PUBLIC_URL is https. */
  readonly secure: boolean;
}

const COOKIE_NAME = 'stacks_oidc';
const COOKIE_PATH = '/api/auth/oidc';
const AUDIENCE = 'stacks-oidc-state';
const ISSUER = 'stacks';
const MAX_COOKIE_LENGTH = 4096;

const Payload = z.object({
  st: z.string().min(1).max(128),
  nn: z.string().min(1).max(128),
  cv: z.string().min(43).max(128),
  rt: z.string().max(2048).nullable(),
});

/**
 * Binds a started sign-in to the browser: an HS256 JWT with its own audience and a key derived
 * from the service secret, in a short-lived HttpOnly, SameSite=Lax cookie scoped to the OIDC paths.
 */
export class OidcStateCookie {
  private readonly key: Buffer;

  constructor(private readonly options: OidcStateCookieOptions) {
    this.key = Buffer.from(hkdfSync('sha256', options.secret, 'stacks', 'oidc state cookie v1', 32));
  }

  /** Sets the cookie carrying the binding, valid for maxAgeMs. */
  set(res: Response, binding: OidcLoginBinding, maxAgeMs: number): void {
    const payload = { st: binding.state, nn: binding.nonce, cv: binding.codeVerifier, rt: binding.returnTo };
    const value = jwt.sign(payload, this.key, {
      algorithm: 'HS256', audience: AUDIENCE, issuer: ISSUER, expiresIn: Math.floor(maxAgeMs / 1000),
    });
    res.cookie(COOKIE_NAME, value, { ...this.attributes(), maxAge: maxAgeMs });
  }

  /** Expires the cookie in the browser. */
  clear(res: Response): void {
    res.clearCookie(COOKIE_NAME, this.attributes());
  }

  /** The binding from a valid, unexpired cookie; null when it is missing, repeated, forged or expired. */
  read(req: Request): OidcLoginBinding | null {
    const values = (req.headers.cookie ?? '')
      .split(';')
      .map((part) => part.trim())
      .filter((part) => part.startsWith(`${COOKIE_NAME}=`))
      .map((part) => part.slice(COOKIE_NAME.length + 1));
    const [value] = values;
    if (values.length !== 1 || !value || value.length > MAX_COOKIE_LENGTH) return null;
    try {
      const verified = jwt.verify(value, this.key, { algorithms: ['HS256'], audience: AUDIENCE, issuer: ISSUER });
      const p = Payload.parse(verified);
      return { state: p.st, nonce: p.nn, codeVerifier: p.cv, returnTo: p.rt };
    } catch {
      return null;
    }
  }

  private attributes() {
    return { httpOnly: true, sameSite: 'lax' as const, secure: this.options.secure, path: COOKIE_PATH };
  }
}
