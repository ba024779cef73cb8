import { bookFileKey, type Book } from '../../domain/book.js';
import { koreaderFileName, koreaderSampleRanges, type KoreaderDigests } from '../../domain/koreader-digest.js';
import type { BlobStore, SecretGenerator } from '../ports.js';

/**
 * KOReader's digests of a stored book, reading only the sampled spans of its file (at most 12 KiB, one open);
 * null when the file is missing.
 */
export async function koreaderDigestsOf(
  blobs: BlobStore,
  secrets: SecretGenerator,
  book: Pick<Book, 'id' | 'fileName' | 'fileSize'>,
): Promise<KoreaderDigests | null> {
  const parts = await blobs.readSpans(bookFileKey(book.id), koreaderSampleRanges(book.fileSize));
  if (!parts) return null;
  return { partialMd5: secrets.md5HexOfBytes(parts), fileNameMd5: secrets.md5Hex(koreaderFileName(book)) };
}
