import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { SecretGenerator } from '../../application/ports.js';

const SECRET_BYTES = 32;

/**
 * SecretGenerator on node:crypto: 256-bit random base64url strings, SHA-256 digests, MD5 hex (KOReader's
 * sync key and document digests) and keyed log tags (HMAC-SHA-256 under `tagKey`: derived from the JWT
 * secret in production, so every instance tags a login alike; a random key when none is given).
 */
export class CryptoSecretGenerator implements SecretGenerator {
  constructor(private readonly tagKey: Uint8Array = randomBytes(SECRET_BYTES)) {}

  tag(value: string): string {
    return createHmac('sha256', this.tagKey).update(value, 'utf8').digest('base64url').slice(0, 16);
  }

  generate(): string {
    return randomBytes(SECRET_BYTES).toString('base64url');
  }

  digest(value: string): string {
    return createHash('sha256').update(value, 'utf8').digest('base64url');
  }

  md5Hex(value: string): string {
    return createHash('md5').update(value, 'utf8').digest('hex');
  }

  md5HexOfBytes(parts: readonly Uint8Array[]): string {
    const hash = createHash('md5');
    for (const part of parts) hash.update(part);
    return hash.digest('hex');
  }
}
