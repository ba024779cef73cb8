import { randomBytes } from 'node:crypto';
import type { IdGenerator } from '../../application/ports.js';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case
const TIME_CHARS = 10;
const RANDOM_BYTES = 16;

function base32(value: bigint, chars: number): string {
  let out = '';
  for (let i = 0; i < chars; i++) {
    out = ALPHABET[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

/**
 * Unpredictable, URL-safe, time-sortable ids: 10 characters of millisecond time followed by
 * 26 characters carrying 128 random bits (36 characters in all).
 */
export class RandomIdGenerator implements IdGenerator {
  constructor(private readonly now: () => number = Date.now) {}

  next(): string {
    const time = BigInt(Math.max(0, Math.floor(this.now())));
    const random = BigInt(`0x${randomBytes(RANDOM_BYTES).toString('hex')}`);
    return base32(time, TIME_CHARS) + base32(random, 26);
  }
}
