import type { Actor } from '../../domain/actor.js';
import type { Book } from '../../domain/book.js';
import { normalizeMetadataPatch, type MetadataPatch } from '../../domain/book-metadata.js';
import { bookNotFound, permissionDenied } from '../../domain/error-catalogue.js';
import { canEditBook } from '../../domain/policies.js';
import type { BookRepository, Clock } from '../ports.js';
import type { Authority } from './authority.js';
import { findReadableBook } from './book-access.js';

export interface UpdateBookInput {
  readonly id: string;
  readonly changes: MetadataPatch;
}

/** Edits the metadata of a book (its uploader, or an admin); a concurrent edit of other fields is kept. */
export class UpdateBook {
  constructor(
    private readonly books: BookRepository,
    private readonly clock: Clock,
    private readonly authority: Authority,
  ) {}

  async execute(actor: Actor, input: UpdateBookInput): Promise<Book> {
    const book = await findReadableBook(this.books, actor, input.id);
    if (!canEditBook(actor, book)) throw permissionDenied();
    if (!canEditBook((await this.authority.confirm(actor)).actor, book)) throw permissionDenied();
    const stored = await this.books.updateMetadata(book.id, normalizeMetadataPatch(input.changes), this.clock.now());
    if (!stored) throw bookNotFound(input.id);
    return stored;
  }
}
