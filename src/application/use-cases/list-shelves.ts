import type { Actor } from '../../domain/actor.js';
import { permissionDenied } from '../../domain/error-catalogue.js';
import { pageOf, type Page, type PageRequest } from '../../domain/page.js';
import { canReadShelves } from '../../domain/policies.js';
import type { Shelf } from '../../domain/shelf.js';
import type { ShelfRepository } from '../ports.js';

export interface ListShelvesInput extends PageRequest {
  /** Only the caller's own shelves, leaving out other people's public ones. */
  readonly onlyOwn: boolean;
}

/** Lists the caller's shelves and every public shelf, ordered by name. */
export class ListShelves {
  constructor(private readonly shelves: ShelfRepository) {}

  async execute(actor: Actor, input: ListShelvesInput): Promise<Page<Shelf>> {
    if (!canReadShelves(actor)) throw permissionDenied();
    const page = { page: input.page, pageSize: input.pageSize };
    const { items, total } = await this.shelves.listVisible(actor.id, input.onlyOwn, page);
    return pageOf(items, total, page);
  }
}
