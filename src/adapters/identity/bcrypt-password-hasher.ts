import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import type { PasswordHasher } from '../../application/ports.js';
import { PASSWORD_MAX_BYTES, passwordByteLength } from '../../domain/user.js';
import type { BcryptTask } from './bcrypt-worker.js';

export interface BcryptPasswordHasherOptions {
  /** bcrypt cost factor (4–31; production ≥ 10). */
  readonly cost: number;
  /** Worker threads; default min(2, availableParallelism()). */
  readonly threads?: number;
}

/**
 * The compiled worker beside this file, or, when running from source, the TypeScript one compiled by
 * tsx's require hook (Node 20 ignores `--import` in a worker's execArgv but honours `--require`).
 */
function workerTarget(): { filename: string; execArgv?: string[] } {
  const compiled = fileURLToPath(new URL('./bcrypt-worker.js', import.meta.url));
  if (existsSync(compiled)) return { filename: compiled };
  const tsxCjs = createRequire(import.meta.url).resolve('tsx/cjs');
  return { filename: fileURLToPath(new URL('./bcrypt-worker.ts', import.meta.url)), execArgv: ['--require', tsxCjs] };
}

/** bcrypt (bcryptjs) password hashing in a small worker-thread pool; refuses input bcrypt would truncate. */
export class BcryptPasswordHasher implements PasswordHasher {
  private readonly pool: Piscina;
  private readonly cost: number;
  private readonly dummyHash: Promise<unknown>;
  private closed = false;

  constructor(options: BcryptPasswordHasherOptions) {
    if (!Number.isInteger(options.cost) || options.cost < 4 || options.cost > 31) throw new Error('bcrypt cost must be 4–31');
    this.cost = options.cost;
    const threads = options.threads ?? Math.min(2, availableParallelism());
    this.pool = new Piscina({ ...workerTarget(), minThreads: threads, maxThreads: threads, idleTimeout: 60_000 });
    this.dummyHash = this.run({ op: 'hash', password: randomBytes(18).toString('base64'), cost: this.cost });
    this.dummyHash.catch(() => undefined); // surfaced by verify(); avoids an unhandled rejection after close()
  }

  async hash(password: string): Promise<string> {
    if (passwordByteLength(password) > PASSWORD_MAX_BYTES) throw new Error(`password exceeds ${PASSWORD_MAX_BYTES} bytes`);
    const hash = await this.run({ op: 'hash', password, cost: this.cost });
    if (typeof hash !== 'string') throw new Error('bcrypt worker returned no hash');
    return hash;
  }

  async verify(password: string, hash: string | null): Promise<boolean> {
    const tooLong = passwordByteLength(password) > PASSWORD_MAX_BYTES;
    if (hash === null || tooLong) {
      // Same cost as a real comparison, so absence and over-long input are not revealed by timing.
      await this.compare(password, String(await this.dummyHash));
      return false;
    }
    return this.compare(password, hash);
  }

  /** Resolves once the dummy hash exists: from then on every verify takes one comparison, account or none. */
  async ready(): Promise<void> {
    await this.dummyHash;
  }

  /** Stops the worker threads. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.destroy();
  }

  private run(task: BcryptTask): Promise<unknown> {
    // Piscina would start new threads for work sent after destroy().
    if (this.closed) return Promise.reject(new Error('password hasher is closed'));
    return this.pool.run(task);
  }

  private async compare(password: string, hash: string): Promise<boolean> {
    try {
      return (await this.run({ op: 'compare', password, hash })) === true;
    } catch {
      return false; // a malformed stored hash never matches
    }
  }
}
