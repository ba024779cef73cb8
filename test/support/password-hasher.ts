import type { PasswordHasher } from '../../src/application/ports.js';

/**
 * A deterministic PasswordHasher for use-case tests: no worker threads and no cost factor, and a
 * stored hash never equals the password. bcrypt itself is tested in test/unit/identity.
 */
export class PlainPasswordHasher implements PasswordHasher {
  async hash(password: string): Promise<string> {
    return `plain:${[...password].reverse().join('')}`;
  }

  async verify(password: string, hash: string | null): Promise<boolean> {
    return hash !== null && hash === (await this.hash(password));
  }
}
