import type { Actor } from '../../domain/actor.js';
import { permissionDenied } from '../../domain/error-catalogue.js';
import { canCreateShelf } from '../../domain/policies.js';
import type { Shelf } from '../../domain/shelf.js';
import { assertShelfBookList, normalizeShelfDescription, normalizeShelfName } from '../../domain/shelf-rules.js';
import type { BookRepository, Clock, IdGenerator, ShelfRepository } from '../ports.js';
import type { Authority } from './authority.js';
import { assertBooksExist } from './shelf-access.js';

export interface CreateShelfInput {
  readonly name: string;
  readonly description?: string | null;
  readonly isPublic?: boolean;
  readonly bookIds?: readonly string[];
}

/** Creates a shelf owned by the caller, optionally with an ordered list of books. */
export class CreateShelf {
  constructor(
    private readonly shelves: ShelfRepository,
    private readonly books: BookRepository,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly authority: Authority,
  ) {}

  async execute(actor: Actor, input: CreateShelfInput): Promise<Shelf> {
    if (!canCreateShelf(actor)) throw permissionDenied();
    const name = normalizeShelfName(input.name);
    const description = normalizeShelfDescription(input.description ?? null);
    const bookIds = [...(input.bookIds ?? [])];
    assertShelfBookList(bookIds);
    await assertBooksExist(this.books, bookIds);
    const { actor: owner } = await this.authority.confirm(actor);
    if (!canCreateShelf(owner)) throw permissionDenied();
    const now = this.clock.now();
    const shelf: Shelf = {
      id: this.ids.next(),
      name,
      description,
      isPublic: input.isPublic ?? false,
      owner: { id: owner.id, username: owner.username },
      bookIds,
      bookCount: bookIds.length,
      createdAt: now,
      updatedAt: now,
    };
    await this.shelves.create(shelf);
    return shelf;
  }
}
