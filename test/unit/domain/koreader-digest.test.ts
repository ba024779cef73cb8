import { describe, expect, it } from 'vitest';
import {
  KOREADER_SAMPLE_OFFSETS, koreaderFileName, koreaderSampleRanges,
} from '../../../src/domain/koreader-digest.js';
import type { ByteRange } from '../../../src/domain/byte-range.js';
import { seededBytes } from '../../support/fixtures/index.js';
import { readingBuffer, referencePartialMd5, md5Of } from '../../support/koreader-reference.js';

const KiB = 1024;
const concat = (bytes: Buffer, ranges: readonly ByteRange[]) => Buffer.concat(ranges.map((r) => bytes.subarray(r.start, r.end + 1)));

describe('KOREADER_SAMPLE_OFFSETS', () => {
  it('starts at 0, as LuaJIT computes lshift(1024, -2), then 1 KiB × 4^i up to 1 GiB', () => {
    expect(KOREADER_SAMPLE_OFFSETS).toEqual([
      0, KiB, 4 * KiB, 16 * KiB, 64 * KiB, 256 * KiB, KiB ** 2, 4 * KiB ** 2, 16 * KiB ** 2, 64 * KiB ** 2, 256 * KiB ** 2, KiB ** 3,
    ]);
  });
});

describe('koreaderSampleRanges', () => {
  it('reads nothing of an empty file and at most what there is of a short one', () => {
    expect(koreaderSampleRanges(0)).toEqual([]);
    expect(koreaderSampleRanges(1)).toEqual([{ start: 0, end: 0 }]);
    expect(koreaderSampleRanges(1000)).toEqual([{ start: 0, end: 999 }]);
  });

  it('merges the adjacent samples at 0 and 1 KiB and stops before an offset at or past the end', () => {
    expect(koreaderSampleRanges(KiB)).toEqual([{ start: 0, end: KiB - 1 }]);
    expect(koreaderSampleRanges(KiB + 1)).toEqual([{ start: 0, end: KiB }]);
    expect(koreaderSampleRanges(4 * KiB)).toEqual([{ start: 0, end: 2 * KiB - 1 }]);
    expect(koreaderSampleRanges(4 * KiB + 1)).toEqual([{ start: 0, end: 2 * KiB - 1 }, { start: 4 * KiB, end: 4 * KiB }]);
    expect(koreaderSampleRanges(16 * KiB + 10)).toEqual([
      { start: 0, end: 2 * KiB - 1 }, { start: 4 * KiB, end: 5 * KiB - 1 }, { start: 16 * KiB, end: 16 * KiB + 9 },
    ]);
  });

  it('takes all twelve samples, 12 KiB in all, of a file past 1 GiB', () => {
    const ranges = koreaderSampleRanges(2 * KiB ** 3);
    expect(ranges).toHaveLength(11);
    expect(ranges.at(-1)).toEqual({ start: KiB ** 3, end: KiB ** 3 + KiB - 1 });
    expect(ranges.reduce((sum, r) => sum + r.end - r.start + 1, 0)).toBe(12 * KiB);
  });

  it('spans exactly the bytes the reference loop hashes, for sizes either side of every offset up to 4 MiB', () => {
    const bytes = seededBytes(15, 4 * KiB ** 2 + 2 * KiB);
    for (const offset of KOREADER_SAMPLE_OFFSETS.filter((o) => o > 0 && o <= 4 * KiB ** 2)) {
      for (const size of [offset - 1, offset, offset + 1, offset + KiB - 1, offset + KiB, offset + KiB + 1]) {
        const file = bytes.subarray(0, size);
        expect(md5Of(concat(file, koreaderSampleRanges(size))), `size ${size}`).toBe(referencePartialMd5(readingBuffer(file)));
      }
    }
  });
});

describe('koreaderFileName', () => {
  it('is the name the download is served under, extension included', () => {
    expect(koreaderFileName({ fileName: 'Le Guin - The Dispossessed.epub' })).toBe('Le Guin - The Dispossessed.epub');
  });
});
