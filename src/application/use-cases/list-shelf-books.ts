import type { Actor } from '../../domain/actor.js';
import type { Book } from '../../domain/book.js';
import { permissionDenied } from '../../domain/error-catalogue.js';
import { pageOf, type Page, type PageRequest } from '../../domain/page.js';
import { canReadBooks, canReadShelves } from '../../domain/policies.js';
import type { BookRepository, ShelfRepository } from '../ports.js';
import { findVisibleShelf } from './shelf-access.js';

export interface ListShelfBooksInput extends PageRequest {
  readonly shelfId: string;
}

/** One page of a shelf's books, in shelf order (needs shelves:read and books:read). */
export class ListShelfBooks {
  constructor(
    private readonly shelves: ShelfRepository,
    private readonly books: BookRepository,
  ) {}

  async execute(actor: Actor, input: ListShelfBooksInput): Promise<Page<Book>> {
    if (!canReadShelves(actor) || !canReadBooks(actor)) throw permissionDenied();
    const shelf = await findVisibleShelf(this.shelves, actor, input.shelfId);
    const request = { page: input.page, pageSize: input.pageSize };
    const { items: ids, total } = await this.shelves.bookIdsPage(shelf.id, request);
    const byId = new Map((await this.books.findByIds(ids)).map((book) => [book.id, book]));
    const books = ids.flatMap((id) => {
      const book = byId.get(id);
      return book ? [book] : [];
    });
    return pageOf(books, total, request);
  }
}
