import type { Request, Response } from 'express';
import type { LoginUser } from '../../application/use-cases/login-user.js';
import { actorFor, type Actor } from '../../domain/actor.js';
import { AuthenticationError } from '../../domain/errors.js';

const BASIC = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i;
/** Longest credentials header accepted (username 50 + password 72 bytes, base64, with room). */
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

/**
 * The caller from HTTP Basic credentials, checked by LoginUser so the same throttling applies as
 * to password login. Failures carry the Basic challenge so readers ask for the password.
 */
export async function basicActor(login: LoginUser, req: Request, res: Response): Promise<Actor> {
  const credentials = basicCredentials(req.get('authorization'));
  try {
    if (!credentials) throw new AuthenticationError('invalid_credentials', 'HTTP Basic credentials are required.');
    const { user } = await login.execute({ ...credentials, clientAddress: req.ip ?? 'unknown' });
    return actorFor(user);
  } catch (error) {
    if (error instanceof AuthenticationError) res.setHeader('WWW-Authenticate', BASIC_CHALLENGE);
    throw error;
  }
}
