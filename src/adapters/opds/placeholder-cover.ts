import { crc32, deflateSync } from 'node:zlib';

/**
 * The plain cover listed for a book that has none: OPDS 2.0 ("The images role") requires every
 * publication in a feed to carry at least one JPEG, PNG or GIF image. A 2:3 PNG of one muted colour.
 */
export const PLACEHOLDER_COVER = { width: 200, height: 300, mediaType: 'image/png' } as const;

function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function solidPng(width: number, height: number, rgb: readonly [number, number, number]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit samples, truecolour, deflate, adaptive filtering, no interlace
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => rgb).flat())]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export const placeholderCoverPng: Buffer = solidPng(PLACEHOLDER_COVER.width, PLACEHOLDER_COVER.height, [0x8a, 0x9b, 0xa8]);
