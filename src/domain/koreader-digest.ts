import type { Book } from './book.js';
import type { ByteRange } from './byte-range.js';

/** KOReader's two digests of a book file, the `document` its kosync plugin sends (lowercase hex MD5s). */
export interface KoreaderDigests {
  /** `util.partialMD5`: one MD5 over 1,024-byte samples of the file at KOReader's offsets. */
  readonly partialMd5: string;
  /** MD5 of the file name as Stacks serves it (KOReader's "filename" matching). */
  readonly fileNameMd5: string;
}

/** Bytes KOReader reads per sample (its `size`), and its `step`. */
export const KOREADER_SAMPLE_BYTES = 1024;

/**
 * Where `util.partialMD5` seeks: `bit.lshift(1024, 2 * i)` for i = -1 … 10. LuaJIT's shift takes its
 * count modulo 32 and wraps to 32 bits, as JavaScript's `<<` does, so i = -1 shifts by 30 and gives 0
 * (not 256): 0, 1 KiB, 4 KiB, 16 KiB, … 1 GiB.
 */
export const KOREADER_SAMPLE_OFFSETS: readonly number[] = Array.from(
  { length: 12 },
  (_, k) => KOREADER_SAMPLE_BYTES << (2 * (k - 1)),
);

/**
 * The spans of a file of `size` bytes whose bytes, concatenated in order, are what `util.partialMD5`
 * hashes: each sample up to 1,024 bytes, none at or past the end of the file (KOReader stops at the
 * first empty read), adjacent samples merged so a reader opens each span once.
 */
export function koreaderSampleRanges(size: number): ByteRange[] {
  const ranges: ByteRange[] = [];
  for (const offset of KOREADER_SAMPLE_OFFSETS) {
    if (offset >= size) break;
    const end = Math.min(offset + KOREADER_SAMPLE_BYTES, size) - 1;
    const last = ranges.at(-1);
    if (last && last.end + 1 === offset) ranges[ranges.length - 1] = { start: last.start, end };
    else ranges.push({ start: offset, end });
  }
  return ranges;
}

/**
 * The name KOReader hashes in "filename" matching: the base name with its extension, which for a
 * book downloaded from Stacks is the Content-Disposition name, `book.fileName`. It is fixed at upload
 * (a metadata edit does not rename the download), so the digest never needs recomputing.
 */
export function koreaderFileName(book: Pick<Book, 'fileName'>): string {
  return book.fileName;
}
