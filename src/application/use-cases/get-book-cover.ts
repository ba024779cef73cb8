import type { Actor } from '../../domain/actor.js';
import { bookCoverKey } from '../../domain/book.js';
import { coverNotFound } from '../../domain/error-catalogue.js';
import type { BlobStore, BookRepository } from '../ports.js';
import { findReadableBook } from './book-access.js';

export interface BookCover {
  readonly mediaType: string;
  readonly body: AsyncIterable<Uint8Array>;
}

/** Gives the cover image of a book; 404 `cover_not_found` when it has none. */
export class GetBookCover {
  constructor(
    private readonly books: BookRepository,
    private readonly blobs: BlobStore,
  ) {}

  async execute(actor: Actor, id: string): Promise<BookCover> {
    const book = await findReadableBook(this.books, actor, id);
    const body = book.coverMediaType ? await this.blobs.read(bookCoverKey(book.id)) : null;
    if (!book.coverMediaType || !body) throw coverNotFound(id);
    return { mediaType: book.coverMediaType, body };
  }
}
