import { describe, expect, it } from 'vitest';
import { MAX_BACKOFF_MS, restartDelayMs } from '../../../src/bootstrap/workers.js';

describe('worker restarts', () => {
  it('wait 100 ms after a first crash, twice as long after each further crash in a row, at most 30 s', () => {
    expect([1, 2, 3, 4, 5].map(restartDelayMs)).toEqual([100, 200, 400, 800, 1600]);
    expect(restartDelayMs(20)).toBe(MAX_BACKOFF_MS);
    expect(MAX_BACKOFF_MS).toBe(30_000);
  });
});
