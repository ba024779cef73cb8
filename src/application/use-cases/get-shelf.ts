import type { Actor } from '../../domain/actor.js';
import { permissionDenied } from '../../domain/error-catalogue.js';
import { canReadShelves } from '../../domain/policies.js';
import type { Shelf } from '../../domain/shelf.js';
import type { ShelfRepository } from '../ports.js';
import { findVisibleShelf } from './shelf-access.js';

/** Reads one shelf; someone else's private shelf is not found. */
export class GetShelf {
  constructor(private readonly shelves: ShelfRepository) {}

  async execute(actor: Actor, id: string): Promise<Shelf> {
    if (!canReadShelves(actor)) throw permissionDenied();
    return findVisibleShelf(this.shelves, actor, id);
  }
}
