import type { Actor } from '../../domain/actor.js';
import { bookNotFound } from '../../domain/error-catalogue.js';
import type { BookRepository, Clock, ShelfRepository } from '../ports.js';
import type { Authority } from './authority.js';
import { confirmShelfEditor, findEditableShelf } from './shelf-access.js';

export interface AddBookToShelfResult {
  /** False when the book was already on the shelf (the call is idempotent). */
  readonly added: boolean;
}

/** Puts a book at the end of a shelf; a book already there stays where it is. */
export class AddBookToShelf {
  constructor(
    private readonly shelves: ShelfRepository,
    private readonly books: BookRepository,
    private readonly clock: Clock,
    private readonly authority: Authority,
  ) {}

  async execute(actor: Actor, input: { shelfId: string; bookId: string }): Promise<AddBookToShelfResult> {
    const shelf = await findEditableShelf(this.shelves, actor, input.shelfId);
    if (!(await this.books.existingIds([input.bookId])).has(input.bookId)) {
      throw bookNotFound(input.bookId);
    }
    await confirmShelfEditor(this.authority, actor, shelf);
    return { added: await this.shelves.addBook(shelf.id, input.bookId, this.clock.now()) };
  }
}
