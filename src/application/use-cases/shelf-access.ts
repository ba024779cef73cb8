import type { Actor } from '../../domain/actor.js';
import { permissionDenied, shelfNotFound } from '../../domain/error-catalogue.js';
import { canCreateShelf, canEditShelf, canSeeShelf } from '../../domain/policies.js';
import type { Shelf } from '../../domain/shelf.js';
import { unknownBookIdsError } from '../../domain/shelf-rules.js';
import type { BookRepository, ShelfRepository } from '../ports.js';
import type { Authority } from './authority.js';

/** The shelf if the actor may see it; absent and invisible shelves are both not found. */
export async function findVisibleShelf(shelves: ShelfRepository, actor: Actor, id: string): Promise<Shelf> {
  const shelf = await shelves.findById(id);
  if (!shelf || !canSeeShelf(actor, shelf)) throw shelfNotFound(id);
  return shelf;
}

/** The shelf if the actor may change it: 403 without shelves:write, 404 if invisible, 403 if not theirs. */
export async function findEditableShelf(shelves: ShelfRepository, actor: Actor, id: string): Promise<Shelf> {
  if (!canCreateShelf(actor)) throw permissionDenied();
  const shelf = await findVisibleShelf(shelves, actor, id);
  if (!canEditShelf(actor, shelf)) throw permissionDenied();
  return shelf;
}

/** The actor as confirmed just before a write to the shelf: 401 when its credential went, 403 when it may no longer change the shelf. */
export async function confirmShelfEditor(authority: Authority, actor: Actor, shelf: Shelf): Promise<Actor> {
  const { actor: current } = await authority.confirm(actor);
  if (!canCreateShelf(current) || !canEditShelf(current, shelf)) throw permissionDenied();
  return current;
}

/** Throws ValidationError naming every id in the list that is not a stored book. */
export async function assertBooksExist(books: BookRepository, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  const error = unknownBookIdsError(ids, await books.existingIds(ids));
  if (error) throw error;
}
