import { PlainPasswordHasher } from './password-hasher.js';

/**
 * The plain test hasher, counting its password checks and holding each one until `release()`, so a
 * test can start parallel attempts and see how many reach the check while the others are in flight.
 */
export class HeldPasswordHasher extends PlainPasswordHasher {
  checks = 0;
  private held: (() => void)[] = [];
  private open = false;

  override async verify(password: string, hash: string | null): Promise<boolean> {
    this.checks += 1;
    if (!this.open) await new Promise<void>((resume) => this.held.push(resume));
    return super.verify(password, hash);
  }

  /** Lets every held check, and every later one, finish. */
  release(): void {
    this.open = true;
    for (const resume of this.held.splice(0)) resume();
  }
}

/** Lets every pending promise callback run (the in-memory store answers within microtasks). */
export const settle = () => new Promise<void>((done) => setTimeout(done, 0));
