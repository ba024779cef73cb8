import type { ByteRange } from '../../domain/byte-range.js';
import type { BookFormat, BookMetadata } from '../../domain/book.js';

export type { ByteRange };

// The file ports: upload staging, stored blobs and metadata extraction.

/** A file received from a client, held in temporary storage until it is kept or discarded. */
export interface StagedFile {
  readonly handle: string;
  readonly size: number;
  readonly sha256: string;
}

export interface UploadStaging {
  /** Streams into a temp file while hashing; throws TooLargeError past maxBytes (nothing kept). */
  stage(source: AsyncIterable<Uint8Array>, maxBytes: number): Promise<StagedFile>;
  discard(file: StagedFile): Promise<void>;
  /** Removes the temp files last written before olderThan (start-up reconciler). Returns how many. */
  clear(olderThan: Date): Promise<number>;
}

export interface BlobStore {
  /** Makes the staged file durable under key, atomically: afterwards it is all there or absent. */
  putStaged(key: string, file: StagedFile): Promise<void>;
  /** Stores small bytes (covers) durably and atomically. */
  putBytes(key: string, data: Uint8Array): Promise<void>;
  /** A readable stream of the whole blob or a range; null when absent. */
  read(key: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | null>;
  /**
   * The bytes of each small range (cut short at the end of the blob, empty past it), in one open of the
   * blob; null when absent. Throws RangeError past 1 MiB in all (it buffers them).
   */
  readSpans(key: string, ranges: readonly ByteRange[]): Promise<Uint8Array[] | null>;
  size(key: string): Promise<number | null>;
  delete(key: string): Promise<void>;
  /** Every key whose blob was last written before olderThan (start-up reconciler). */
  keys(olderThan: Date): AsyncIterable<string>;
}

export interface ExtractedCover {
  readonly data: Uint8Array;
  readonly mediaType: string;
}

export interface ExtractedBook {
  readonly format: BookFormat;
  /** What the file says; absent fields are left out. */
  readonly metadata: Partial<BookMetadata>;
  readonly cover: ExtractedCover | null;
}

export interface MetadataReader {
  /**
   * Decides the type by content and reads metadata, within size, entry, depth and time limits.
   * Throws UnsupportedTypeError for an unknown type and UnprocessableError for a corrupt file.
   */
  read(file: StagedFile): Promise<ExtractedBook>;
}

/** Converts an EPUB into a KEPUB (the EPUB Kobo e-readers read with precise positions: kepubify's koboSpans and wrappers). */
export interface KepubConverter {
  /** The converter's version: a cached KEPUB made by another version is made again. */
  readonly version: number;
  /**
   * Writes the KEPUB of the staged EPUB to a new staged file beside it, within size, entry, time and
   * memory limits; the source is left as it was. Throws UnprocessableError for a file it cannot convert safely.
   */
  convert(source: StagedFile): Promise<StagedFile>;
}

/** What a resized cover should fit in. */
export interface CoverSize {
  /** The box the image is scaled to fit inside (never enlarged). */
  readonly maxWidth: number;
  readonly maxHeight: number;
  /** JPEG quality, 1..100. */
  readonly quality: number;
  readonly greyscale: boolean;
}

export interface CoverResizer {
  /** A JPEG of the image fitted inside the size; throws UnprocessableError for bytes that are no image it reads. */
  resize(image: Uint8Array, size: CoverSize): Promise<Uint8Array>;
}
