import { createHmac, randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import type { Authenticate } from '../../application/use-cases/authenticate.js';
import type { IssuedToken } from '../../application/ports.js';
import type { LoginInput, LoginUser } from '../../application/use-cases/login-user.js';
import { actorFor, type Actor } from '../../domain/actor.js';
import { isApiKeySecret } from '../../domain/api-key.js';
import { invalidCredentials } from '../../domain/error-catalogue.js';
import { AuthenticationError } from '../../domain/errors.js';
import type { User } from '../../domain/user.js';

const BASIC = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i;
/** Longest credentials header accepted (username 50 + password 72 bytes or an API key, base64, with room). */
const MAX_ENCODED = 512;

export const BASIC_CHALLENGE = 'Basic realm="Stacks", charset="UTF-8"';

/** The username and password of `Authorization: Basic`, or null when absent or malformed. */
export function basicCredentials(header: string | undefined): { login: string; password: string } | null {
  const encoded = header && header.length <= MAX_ENCODED ? BASIC.exec(header)?.[1] : undefined;
  if (!encoded) return null;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { login: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export interface BasicAuthOptions {
  /** How long a verified credential pair is served from memory (default 5 min). */
  readonly ttlMs?: number;
  readonly maxEntries?: number;
}

/**
 * The caller from HTTP Basic credentials. The first request is checked by LoginUser (bcrypt, the same
 * throttling as password login: every guess is reserved in the store before bcrypt runs); the token it
 * issues is then kept for a few minutes under an HMAC of the whole credential pair, and later requests
 * are checked like bearer requests (Authenticate: user exists, not disabled, password unchanged, roles
 * read now) without another bcrypt comparison. Only a pair LoginUser accepted is ever kept, so no
 * guess is served from memory; parallel first requests with one pair share one LoginUser check, so a
 * reader fetching many covers at once does not spend its own account's attempts.
 * A password starting with `stk_` is a personal API key of that username, checked on every request
 * by Authenticate.withKey (a wrong key counted per address; its permissions are the ceiling).
 * Failures carry the Basic challenge so readers ask for the password.
 */
export class BasicAuthenticator {
  private readonly key = randomBytes(32);
  private readonly verified = new Map<string, { token: string; until: number }>();
  private readonly checking = new Map<string, Promise<{ user: User; token: IssuedToken }>>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;

  constructor(
    private readonly login: LoginUser,
    private readonly authenticate: Authenticate,
    options: BasicAuthOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 5 * 60_000;
    this.maxEntries = options.maxEntries ?? 1000;
  }

  async actor(req: Request, res: Response): Promise<Actor> {
    try {
      const credentials = basicCredentials(req.get('authorization'));
      if (!credentials) throw invalidCredentials();
      if (isApiKeySecret(credentials.password)) return await this.keyActor(credentials.login, credentials.password, req.ip ?? 'unknown');
      const cacheKey = createHmac('sha256', this.key).update(JSON.stringify([credentials.login, credentials.password])).digest('base64url');
      const cached = await this.fromCache(cacheKey);
      if (cached) return cached;
      const { user, token } = await this.check(cacheKey, { ...credentials, clientAddress: req.ip ?? 'unknown', method: 'opds_password' });
      return actorFor(user, { kind: 'token', jti: token.jti, tokenVersion: user.tokenVersion });
    } catch (error) {
      if (error instanceof AuthenticationError) res.setHeader('WWW-Authenticate', BASIC_CHALLENGE);
      throw error;
    }
  }

  /** The key's owner acting through it, when the key belongs to the given username; else invalid credentials. */
  private async keyActor(login: string, secret: string, clientAddress: string): Promise<Actor> {
    const { actor } = await this.authenticate.withKey(secret, clientAddress, { method: 'opds_key', username: login }).catch((error: unknown) => {
      throw error instanceof AuthenticationError ? invalidCredentials() : error;
    });
    return actor;
  }

  /** One LoginUser check per credential pair at a time; a success is remembered. */
  private check(cacheKey: string, input: LoginInput): Promise<{ user: User; token: IssuedToken }> {
    const pending = this.checking.get(cacheKey);
    if (pending) return pending;
    const started = this.login.execute(input).then((result) => {
      this.remember(cacheKey, result.token.token);
      return result;
    }).finally(() => this.checking.delete(cacheKey));
    this.checking.set(cacheKey, started);
    return started;
  }

  private async fromCache(cacheKey: string): Promise<Actor | null> {
    const entry = this.verified.get(cacheKey);
    if (!entry) return null;
    this.verified.delete(cacheKey);
    if (entry.until < Date.now()) return null;
    try {
      const { actor } = await this.authenticate.execute(entry.token);
      this.verified.set(cacheKey, entry);
      return actor;
    } catch {
      return null;
    }
  }

  private remember(cacheKey: string, token: string): void {
    if (this.verified.size >= this.maxEntries) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(cacheKey, { token, until: Date.now() + this.ttlMs });
  }
}
