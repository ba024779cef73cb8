import { createHash, randomBytes } from 'node:crypto';
import type { SecretGenerator } from '../../application/ports.js';

const SECRET_BYTES = 32;

/** SecretGenerator on node:crypto: 256-bit random base64url strings SHA-256 digests and MD5 hex (KOReader's sync key and document digests). */
export class CryptoSecretGenerator implements SecretGenerator {
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
