import type { Actor } from '../../domain/actor.js';
import type { Book } from '../../domain/book.js';
import type { BookRepository } from '../ports.js';
import { findReadableBook } from './book-access.js';

/** Reads one book's record. */
export class GetBook {
  constructor(private readonly books: BookRepository) {}

  async execute(actor: Actor, id: string): Promise<Book> {
    return findReadableBook(this.books, actor, id);
  }
}
