/**
 * Blobs made from a book's file or cover (a KEPUB, resized covers), kept beside them under keys that
 * start with the book's id, so housekeeping removes them with the book (bookIdOfBlobKey).
 */

/** The KEPUB made from the book's EPUB (its SHA-256) by converter `version`. */
export function kepubKey(bookId: string, sha256: string, version: number): string {
  return `${bookId}.kepub${version}-${sha256.slice(0, 16)}`;
}

/** The longest side a resized cover may have, and the steps sizes are rounded up to, so a book has a few variants at most. */
export const COVER_SIDES = [128, 256, 384, 512, 768, 1024, 1536, 2048] as const;
/** JPEG qualities a requested quality is rounded up to. */
export const COVER_QUALITIES = [50, 75, 90] as const;

/** One cached variant of a cover: the box it fits in, its quality and whether it is grey. */
export interface CoverVariant {
  readonly side: number;
  readonly quality: number;
  readonly greyscale: boolean;
}

/** The variant serving a request for width × height at a quality: the smallest step that holds both sides (so never smaller than asked, up to 2048). */
export function coverVariant(width: number, height: number, quality: number, greyscale: boolean): CoverVariant {
  const wanted = Math.max(1, width, height);
  const side: number = COVER_SIDES.find((s) => s >= wanted) ?? 2048;
  const q: number = COVER_QUALITIES.find((v) => v >= quality) ?? 90;
  return { side, quality: q, greyscale };
}

export function coverVariantKey(bookId: string, variant: CoverVariant): string {
  return `${bookId}.cover${variant.side}q${variant.quality}${variant.greyscale ? 'g' : ''}`;
}

/** The book id of a derived blob's key, or null. */
export function bookIdOfDerivedKey(key: string): string | null {
  const match = /^(.+)\.(?:kepub\d+-[0-9a-f]{16}|cover\d+q\d+g?)$/.exec(key);
  return match ? match[1]! : null;
}
