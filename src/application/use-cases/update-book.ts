import type { Actor } from '../../domain/actor.js';
import type { Book } from '../../domain/book.js';
import { normalizeMetadataPatch, type MetadataPatch } from '../../domain/book-metadata.js';
import { bookNotFound, permissionDenied } from '../../domain/error-catalogue.js';
import { canEditBook } from '../../domain/policies.js';
import type { BookRepository, Clock } from '../ports.js';
import { findReadableBook } from './book-access.js';

export interface UpdateBookInput {
  readonly id: string;
  readonly changes: MetadataPatch;
}

/** Edits the metadata of a book (its uploader, or an admin). */
export class UpdateBook {
  constructor(
    private readonly books: BookRepository,
    private readonly clock: Clock,
  ) {}

  async execute(actor: Actor, input: UpdateBookInput): Promise<Book> {
    const book = await findReadableBook(this.books, actor, input.id);
    if (!canEditBook(actor, book)) throw permissionDenied();
    const updated: Book = { ...book, ...normalizeMetadataPatch(input.changes), updatedAt: this.clock.now() };
    await this.books.update(updated);
    const stored = await this.books.findById(book.id);
    if (!stored) throw bookNotFound(input.id);
    return stored;
  }
}
