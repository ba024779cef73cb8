import type { PasswordHasher } from '../../src/application/ports.js';
import { PlainPasswordHasher } from './password-hasher.js';

/** A paused hash: `arrived` resolves once hash() is waiting; release() lets it finish. */
export interface HashGate {
  readonly arrived: Promise<void>;
  release(): void;
}

/**
 * Hashes like PlainPasswordHasher, but the hash() after pauseNextHash() waits until released, so a
 * test can run another writer between a use case's read and its write, deterministically.
 */
export class GatedPasswordHasher implements PasswordHasher {
  private readonly plain = new PlainPasswordHasher();
  private pending: { arrive: () => void; released: Promise<void> } | null = null;

  pauseNextHash(): HashGate {
    let arrive = (): void => undefined;
    let release = (): void => undefined;
    const arrived = new Promise<void>((resolve) => (arrive = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    this.pending = { arrive, released };
    return { arrived, release };
  }

  async hash(password: string): Promise<string> {
    const gate = this.pending;
    this.pending = null;
    if (gate) {
      gate.arrive();
      await gate.released;
    }
    return this.plain.hash(password);
  }

  verify(password: string, hash: string | null): Promise<boolean> {
    return this.plain.verify(password, hash);
  }
}
