import type { Actor } from '../../domain/actor.js';
import type { Book, BookQuery } from '../../domain/book.js';
import { permissionDenied } from '../../domain/error-catalogue.js';
import { pageOf, type Page } from '../../domain/page.js';
import { canReadBooks } from '../../domain/policies.js';
import type { BookRepository } from '../ports.js';

/** Lists, searches, filters and sorts the library, one page at a time; `status` and the `read` sort are the caller's. */
export class ListBooks {
  constructor(private readonly books: BookRepository) {}

  async execute(actor: Actor, query: BookQuery): Promise<Page<Book>> {
    if (!canReadBooks(actor)) throw permissionDenied();
    const { items, total } = await this.books.search({ ...query, reader: actor.id });
    return pageOf(items, total, query);
  }
}
