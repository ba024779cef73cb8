import { CryptoSecretGenerator } from '../../src/adapters/identity/crypto-secret-generator.js';

/** The real SHA-256 digests, with predictable secrets `secret-1`, `secret-2`, ... */
export class SequentialSecrets extends CryptoSecretGenerator {
  private n = 0;

  override generate(): string {
    this.n += 1;
    return `secret-${this.n}`;
  }
}

/** SequentialSecrets shaped as a Kobo sync URL's secret (43 URL-safe characters): `secret-1___...`. */
export class SequentialUrlSecrets extends SequentialSecrets {
  override generate(): string {
    return super.generate().padEnd(43, '_');
  }
}
