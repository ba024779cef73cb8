import type { Actor } from '../../domain/actor.js';
import { bookNotOnShelf } from '../../domain/error-catalogue.js';
import type { Clock, ShelfRepository } from '../ports.js';
import type { Authority } from './authority.js';
import { confirmShelfEditor, findEditableShelf } from './shelf-access.js';

/** Takes a book off a shelf; the book itself stays in the library. */
export class RemoveBookFromShelf {
  constructor(
    private readonly shelves: ShelfRepository,
    private readonly clock: Clock,
    private readonly authority: Authority,
  ) {}

  async execute(actor: Actor, input: { shelfId: string; bookId: string }): Promise<void> {
    const shelf = await findEditableShelf(this.shelves, actor, input.shelfId);
    await confirmShelfEditor(this.authority, actor, shelf);
    if (!(await this.shelves.removeBook(shelf.id, input.bookId, this.clock.now()))) {
      throw bookNotOnShelf(input.bookId);
    }
  }
}
