import { createHmac, generateKeyPairSync, sign as rsaSign, hkdfSync } from 'node:crypto';
import { TEST_JWT_SECRET } from '../../support/test-app.js';

const b64 = (value: unknown): string =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/** Builds a JWT by hand: any header, any payload, any HMAC key (default: the test app's real secret). */
export function forge(header: Record<string, unknown>, payload: Record<string, unknown>, key: string | Buffer = TEST_JWT_SECRET): string {
  const head = `${b64(header)}.${b64(payload)}`;
  const alg = String(header.alg ?? '');
  const hash = { HS256: 'sha256', HS384: 'sha384', HS512: 'sha512' }[alg];
  const sig = hash ? createHmac(hash, key).update(head).digest('base64url') : '';
  return `${head}.${sig}`;
}

/** An RS256 token signed with a key the attacker made, which it also carries in its header. */
export function rsaWithEmbeddedKey(payload: Record<string, unknown>, extraHeader: Record<string, unknown> = {}): string {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const header = { alg: 'RS256', typ: 'JWT', jwk: publicKey.export({ format: 'jwk' }), ...extraHeader };
  const head = `${b64(header)}.${b64(payload)}`;
  return `${head}.${rsaSign('sha256', Buffer.from(head), privateKey).toString('base64url')}`;
}

/** The key the OIDC state cookie is signed with (derived from the service secret). */
export const stateCookieKey = (): Buffer => Buffer.from(hkdfSync('sha256', TEST_JWT_SECRET, 'stacks', 'oidc state cookie v1', 32));

/** The claims the service issues, for a user, at the given time (seconds). */
export function claims(sub: string, now: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { sub, jti: `forged-${sub}-${now}`, tv: 0, iat: now, exp: now + 3600, iss: 'stacks', aud: 'stacks', ...extra };
}

/** Flips the unused low bits of the last base64url character: same bytes, different text. */
export function nonCanonical(token: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const last = token[token.length - 1]!;
  const i = alphabet.indexOf(last);
  return token.slice(0, -1) + alphabet[(i & ~3) | ((i + 1) & 3)]!;
}
