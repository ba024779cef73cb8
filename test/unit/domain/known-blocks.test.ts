import { describe, expect, it } from 'vitest';
import { KnownBlocks } from '../../../src/domain/known-blocks.js';

const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);

describe('KnownBlocks', () => {
  it('answers the time left of a remembered block, and nothing once it has ended or been forgotten', () => {
    const blocks = new KnownBlocks();
    blocks.remember('a', at(0), 5_000);
    blocks.remember('b', at(0), 5_000);
    expect(blocks.waitMs('a', at(1_000))).toBe(4_000);
    expect(blocks.waitMs('a', at(5_000))).toBe(0);
    expect(blocks.waitMs('unknown', at(0))).toBe(0);
    blocks.forget('b');
    expect(blocks.waitMs('b', at(1_000))).toBe(0);
  });

  it('stays within its capacity: ended blocks go first, then the oldest remembered', () => {
    const blocks = new KnownBlocks(2);
    blocks.remember('short', at(0), 1_000);
    blocks.remember('long', at(0), 60_000);
    blocks.remember('new', at(2_000), 60_000);
    expect([blocks.waitMs('long', at(2_000)), blocks.waitMs('new', at(2_000))]).toEqual([58_000, 60_000]);
    blocks.remember('newer', at(3_000), 60_000);
    expect(['long', 'new', 'newer'].map((key) => blocks.waitMs(key, at(3_000)))).toEqual([0, 59_000, 60_000]);
  });

  it('asks the store again after a few seconds, so a block lifted elsewhere (an admin unlock) is honoured; until then it answers the block\'s own end', () => {
    const blocks = new KnownBlocks();
    blocks.remember('a', at(0), 60 * 60_000);
    expect(blocks.waitMs('a', at(4_999))).toBe(60 * 60_000 - 4_999);
    expect(blocks.waitMs('a', at(5_000))).toBe(0);
    expect(blocks.waitMs('a', at(5_001))).toBe(0);
  });
});
