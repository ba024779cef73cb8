import { crc32, inflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { placeholderCoverPng, PLACEHOLDER_COVER } from '../../../src/adapters/opds/placeholder-cover.js';

function chunks(png: Buffer): { type: string; data: Buffer; crcOk: boolean }[] {
  const out = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    const typeAndData = png.subarray(at + 4, at + 8 + length);
    out.push({ type: typeAndData.subarray(0, 4).toString('latin1'), data: typeAndData.subarray(4), crcOk: crc32(typeAndData) === png.readUInt32BE(at + 8 + length) });
    at += 12 + length;
  }
  return out;
}

describe('the placeholder cover', () => {
  it('is a well-formed 200x300 truecolour PNG: signature, checksummed chunks, one row of pixels per line', () => {
    expect(placeholderCoverPng.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    const parts = chunks(placeholderCoverPng);
    expect(parts.map((c) => [c.type, c.crcOk])).toEqual([['IHDR', true], ['IDAT', true], ['IEND', true]]);
    const ihdr = parts[0]!.data;
    expect([ihdr.readUInt32BE(0), ihdr.readUInt32BE(4), ihdr[8], ihdr[9]]).toEqual([PLACEHOLDER_COVER.width, PLACEHOLDER_COVER.height, 8, 2]);
    expect(inflateSync(parts[1]!.data).length).toBe(PLACEHOLDER_COVER.height * (1 + 3 * PLACEHOLDER_COVER.width));
  });
});
