import { bookFileKey, type Book } from '../../domain/book.js';
import { koreaderFileName, koreaderSampleRanges, type KoreaderDigests } from '../../domain/koreader-digest.js';
import type { BlobStore, SecretGenerator } from '../ports.js';

/**
 * KOReader's digests of a stored book, reading only the sampled spans of its file (at most 12 KiB);
 * null when the file is missing.
 */
export async function koreaderDigestsOf(
  blobs: BlobStore,
  secrets: SecretGenerator,
  book: Pick<Book, 'id' | 'fileName' | 'fileSize'>,
): Promise<KoreaderDigests | null> {
  const parts: Uint8Array[] = [];
  for (const range of koreaderSampleRanges(book.fileSize)) {
    const body = await blobs.read(bookFileKey(book.id), range);
    if (!body) return null;
    for await (const chunk of body) parts.push(chunk);
  }
  if (parts.length === 0 && (await blobs.size(bookFileKey(book.id))) === null) return null;
  return { partialMd5: secrets.md5HexOfBytes(parts), fileNameMd5: secrets.md5Hex(koreaderFileName(book)) };
}
