import type { Actor } from '../../domain/actor.js';
import { shelfNotFound } from '../../domain/error-catalogue.js';
import type { ShelfRepository } from '../ports.js';
import type { Authority } from './authority.js';
import { confirmShelfEditor, findEditableShelf } from './shelf-access.js';

/** Deletes a shelf (owner or admin); the books on it stay in the library. */
export class DeleteShelf {
  constructor(
    private readonly shelves: ShelfRepository,
    private readonly authority: Authority,
  ) {}

  async execute(actor: Actor, id: string): Promise<void> {
    const shelf = await findEditableShelf(this.shelves, actor, id);
    await confirmShelfEditor(this.authority, actor, shelf);
    if (!(await this.shelves.delete(shelf.id))) throw shelfNotFound(id);
  }
}
