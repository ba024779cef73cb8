import type { Actor } from '../../domain/actor.js';
import { bookFileKey, MEDIA_TYPES, type BookFormat } from '../../domain/book.js';
import { bookFileNotFound, rangeNotSatisfiable } from '../../domain/error-catalogue.js';
import { RangeNotSatisfiableError } from '../../domain/errors.js';
import type { BlobStore, BookRepository, ByteRange } from '../ports.js';
import { findReadableBook } from './book-access.js';

/** A book's file, described before any byte is read; `open` reads it whole or one byte range. */
export interface BookFile {
  readonly format: BookFormat;
  readonly mediaType: string;
  /** Display name for the download; never a storage path. */
  readonly fileName: string;
  readonly size: number;
  /** Changes whenever the content does: the quoted SHA-256. */
  readonly etag: string;
  /** Throws RangeNotSatisfiableError for a range outside the file. */
  open(range?: ByteRange): Promise<AsyncIterable<Uint8Array>>;
}

/** Gives the file of a book for download, with what the response headers need. */
export class GetBookFile {
  constructor(
    private readonly books: BookRepository,
    private readonly blobs: BlobStore,
  ) {}

  async execute(actor: Actor, id: string): Promise<BookFile> {
    const book = await findReadableBook(this.books, actor, id);
    const size = book.fileSize;
    const open = async (range?: ByteRange): Promise<AsyncIterable<Uint8Array>> => {
      if (range && !(range.start >= 0 && range.start <= range.end && range.end < size)) throw rangeNotSatisfiable(size);
      const body = await this.blobs.read(bookFileKey(book.id), range);
      if (!body) throw bookFileNotFound(id);
      return body;
    };
    return { format: book.format, mediaType: MEDIA_TYPES[book.format], fileName: book.fileName, size, etag: `"${book.sha256}"`, open };
  }
}
