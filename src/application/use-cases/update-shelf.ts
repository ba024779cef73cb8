import type { Actor } from '../../domain/actor.js';
import { shelfNotFound } from '../../domain/error-catalogue.js';
import type { Shelf } from '../../domain/shelf.js';
import { assertShelfBookList, normalizeShelfDescription, normalizeShelfName } from '../../domain/shelf-rules.js';
import type { BookRepository, Clock, ShelfDetailsPatch, ShelfRepository } from '../ports.js';
import type { Authority } from './authority.js';
import { assertBooksExist, confirmShelfEditor, findEditableShelf } from './shelf-access.js';

export interface UpdateShelfInput {
  readonly shelfId: string;
  readonly name?: string;
  readonly description?: string | null;
  readonly isPublic?: boolean;
  /** The full ordered membership; this is how a shelf is reordered. */
  readonly bookIds?: readonly string[];
}

/** Changes a shelf's details and/or its ordered books (owner or admin). */
export class UpdateShelf {
  constructor(
    private readonly shelves: ShelfRepository,
    private readonly books: BookRepository,
    private readonly clock: Clock,
    private readonly authority: Authority,
  ) {}

  async execute(actor: Actor, input: UpdateShelfInput): Promise<Shelf> {
    const shelf = await findEditableShelf(this.shelves, actor, input.shelfId);
    const details: ShelfDetailsPatch = {
      ...(input.name !== undefined && { name: normalizeShelfName(input.name) }),
      ...(input.description !== undefined && { description: normalizeShelfDescription(input.description) }),
      ...(input.isPublic !== undefined && { isPublic: input.isPublic }),
    };
    if (input.bookIds) {
      assertShelfBookList(input.bookIds);
      await assertBooksExist(this.books, input.bookIds);
    }
    await confirmShelfEditor(this.authority, actor, shelf);
    const now = this.clock.now();
    const detailsChanged = Object.keys(details).length > 0;
    if (detailsChanged && !(await this.shelves.updateDetails(shelf.id, details, now))) throw shelfNotFound(input.shelfId);
    if (input.bookIds) await this.shelves.replaceBooks(shelf.id, input.bookIds, now);
    const updated = await this.shelves.findById(shelf.id);
    if (!updated) throw shelfNotFound(input.shelfId);
    return updated;
  }
}
