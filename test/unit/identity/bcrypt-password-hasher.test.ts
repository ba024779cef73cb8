import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BcryptPasswordHasher } from '../../../src/adapters/identity/bcrypt-password-hasher.js';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

describe('BcryptPasswordHasher', () => {
  let hasher: BcryptPasswordHasher;

  beforeAll(async () => {
    hasher = new BcryptPasswordHasher({ cost: 10 });
    await hasher.verify('warm-up', null); // starts the workers and waits for the dummy hash
  });
  afterAll(() => hasher.close());

  it('produces bcrypt hashes at the configured cost', async () => {
    expect(await hasher.hash('correct horse battery')).toMatch(/^\$2[aby]\$10\$[./A-Za-z0-9]{53}$/);
  });

  it('salts: two hashes of one password differ and both verify', async () => {
    const [a, b] = await Promise.all([hasher.hash('same password'), hasher.hash('same password')]);
    expect(a).not.toBe(b);
    expect(await hasher.verify('same password', a)).toBe(true);
    expect(await hasher.verify('same password', b)).toBe(true);
  });

  it('verifies the right password and refuses a wrong one', async () => {
    const hash = await hasher.hash('s3cret-pass');
    expect(await hasher.verify('s3cret-pass', hash)).toBe(true);
    expect(await hasher.verify('s3cret-pasS', hash)).toBe(false);
    expect(await hasher.verify('', hash)).toBe(false);
  });

  it('distinguishes the 72nd byte and refuses to hash a 73-byte password', async () => {
    const hash = await hasher.hash(`${'a'.repeat(71)}X`);
    expect(await hasher.verify(`${'a'.repeat(71)}Y`, hash)).toBe(false);
    await expect(hasher.hash(`${'a'.repeat(72)}X`)).rejects.toThrow(/72 bytes/);
  });

  it('never matches input longer than 72 bytes, which bcrypt would truncate', async () => {
    const hash = await hasher.hash('a'.repeat(72));
    expect(await hasher.verify('a'.repeat(72), hash)).toBe(true);
    expect(await hasher.verify(`${'a'.repeat(72)}Y`, hash)).toBe(false);
  });

  it('handles emoji passwords by their UTF-8 bytes', async () => {
    const eighteen = '😀'.repeat(18); // 72 bytes
    const hash = await hasher.hash(eighteen);
    expect(await hasher.verify(eighteen, hash)).toBe(true);
    expect(await hasher.verify(`${'😀'.repeat(17)}😃`, hash)).toBe(false);
    expect(await hasher.verify('😀'.repeat(64), hash)).toBe(false); // 256 bytes: same first 72
    await expect(hasher.hash('😀'.repeat(64))).rejects.toThrow();
  });

  it('returns false for a null hash and a malformed hash', async () => {
    expect(await hasher.verify('anything', null)).toBe(false);
    expect(await hasher.verify('anything', 'not-a-bcrypt-hash')).toBe(false);
  });

  it('spends about one comparison on a null hash, as on a real one', async () => {
    const hash = await hasher.hash('known-user-password');
    const real: number[] = [];
    const absent: number[] = [];
    for (let i = 0; i < 5; i++) {
      real.push(await timed(() => hasher.verify('wrong-password', hash)));
      absent.push(await timed(() => hasher.verify('wrong-password', null)));
    }
    // An early return would be ~1000x faster; a dummy comparison lands near 1x.
    expect(median(absent) / median(real)).toBeGreaterThan(0.4);
  });

  it('keeps the event loop turning during 10 concurrent hashes (counted in loop turns, not milliseconds)', async () => {
    // On the main thread bcryptjs gives the loop one turn per ~100 ms slice of each hash: about 10-20 turns
    // before the first of ten hashes ends. Off the main thread the loop turns freely meanwhile: thousands,
    // however busy the machine (a slower machine slows the hash as much as the loop).
    let turns = 0;
    let spinning = true;
    const spin = () => {
      turns += 1;
      if (spinning) setImmediate(spin);
    };
    setImmediate(spin);
    const hashes = Array.from({ length: 10 }, (_, i) => hasher.hash(`password-${i}`));
    await Promise.race(hashes);
    const turnsBeforeFirst = turns;
    expect(await Promise.all(hashes)).toHaveLength(10);
    spinning = false;
    expect(turnsBeforeFirst).toBeGreaterThan(200);
  });

  it('refuses work after close()', async () => {
    const closing = new BcryptPasswordHasher({ cost: 4, threads: 1 });
    expect(await closing.verify('x', await closing.hash('x'))).toBe(true);
    await closing.close();
    await expect(closing.hash('x')).rejects.toThrow(/closed/);
    await closing.close(); // idempotent
  });
});
