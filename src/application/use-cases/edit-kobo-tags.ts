import { bookNotFound, bookNotOnShelf, hasCodeOf, permissionDenied, shelfNameTaken, shelfNotFound } from '../../domain/error-catalogue.js';
import { canCreateShelf } from '../../domain/policies.js';
import type { Shelf } from '../../domain/shelf.js';
import { shelfNameKey } from '../../domain/shelf-rules.js';
import type { ShelfRepository } from '../ports.js';
import type { AddBookToShelf } from './add-book-to-shelf.js';
import type { KoboSession } from './authenticate-kobo-device.js';
import type { CreateShelf } from './create-shelf.js';
import type { DeleteShelf } from './delete-shelf.js';
import { koboShelfBooks } from './kobo-sync-scope.js';
import type { RemoveBookFromShelf } from './remove-book-from-shelf.js';
import type { UpdateShelf } from './update-shelf.js';

type Session = Pick<KoboSession, 'actor' | 'device'>;

/** The distinct ids among `ids`, and for a device limited to shelves only those on them (`limitedTo`). */
const within = (limitedTo: ReadonlySet<string> | null, ids: readonly string[]): string[] =>
  [...new Set(ids)].filter((id) => limitedTo === null || limitedTo.has(id));

/**
 * Kobo collections edited on the device, as its owner's shelves, with the shelf rules and permissions of
 * CreateShelf, UpdateShelf, DeleteShelf, AddBookToShelf and RemoveBookFromShelf. Items Stacks does not know
 * are ignored, as Calibre-Web does.
 *
 * A device limited to shelves changes only those shelves, with only the books on them: any other shelf is
 * 404 as an unknown one, a collection of a new name is refused (403), and books off its shelves are ignored
 * (added or removed) as unknown ones are. Else whoever holds its URL could change the owner's other shelves,
 * or put any of the owner's books on its own shelves and so download them. A book listed twice in one request
 * is handled once.
 */
export class EditKoboTags {
  constructor(
    private readonly shelves: ShelfRepository,
    private readonly createShelf: CreateShelf,
    private readonly updateShelf: UpdateShelf,
    private readonly deleteShelf: DeleteShelf,
    private readonly addBook: AddBookToShelf,
    private readonly removeBook: RemoveBookFromShelf,
  ) {}

  /** A collection made on the Kobo: a new shelf, or the shelf of that name (names are unique per owner), with the items added. */
  async create(session: Session, name: string, bookIds: readonly string[]): Promise<Shelf> {
    const limitedTo = await koboShelfBooks(session, this.shelves);
    const shelf = limitedTo
      ? await this.deviceShelfNamed(session, name)
      : await this.createShelf.execute(session.actor, { name }).catch(async (error: unknown) => {
        if (!hasCodeOf(error, shelfNameTaken)) throw error;
        return this.ownShelfNamed(session, name);
      });
    await this.add(session, shelf.id, within(limitedTo, bookIds));
    return (await this.shelves.findById(shelf.id)) ?? shelf;
  }

  async rename(session: Session, shelfId: string, name: string): Promise<void> {
    this.inScope(session, shelfId);
    await this.updateShelf.execute(session.actor, { shelfId, name });
  }

  async delete(session: Session, shelfId: string): Promise<void> {
    this.inScope(session, shelfId);
    await this.deleteShelf.execute(session.actor, shelfId);
  }

  async addItems(session: Session, shelfId: string, bookIds: readonly string[]): Promise<void> {
    this.inScope(session, shelfId);
    await this.add(session, shelfId, within(await koboShelfBooks(session, this.shelves), bookIds));
  }

  async removeItems(session: Session, shelfId: string, bookIds: readonly string[]): Promise<void> {
    this.inScope(session, shelfId);
    for (const bookId of within(await koboShelfBooks(session, this.shelves), bookIds)) {
      await this.removeBook.execute(session.actor, { shelfId, bookId }).catch((error: unknown) => {
        if (!hasCodeOf(error, () => bookNotOnShelf(bookId))) throw error;
      });
    }
  }

  private async add(session: Session, shelfId: string, bookIds: readonly string[]): Promise<void> {
    for (const bookId of bookIds) {
      await this.addBook.execute(session.actor, { shelfId, bookId }).catch((error: unknown) => {
        if (!hasCodeOf(error, () => bookNotFound(bookId))) throw error;
      });
    }
  }

  /** A device limited to shelves reaches only those: any other is answered as an unknown shelf. */
  private inScope(session: Session, shelfId: string): void {
    const { shelfIds } = session.device;
    if (shelfIds.length > 0 && !shelfIds.includes(shelfId)) throw shelfNotFound(shelfId);
  }

  /** The limited device's own shelf of that name (with the permission to make shelves, as CreateShelf asks); a new name is refused. */
  private async deviceShelfNamed(session: Session, name: string): Promise<Shelf> {
    if (!canCreateShelf(session.actor)) throw permissionDenied();
    const key = shelfNameKey(name.trim());
    for (const shelfId of session.device.shelfIds) {
      const shelf = await this.shelves.findById(shelfId);
      if (shelf && shelf.owner.id === session.actor.id && shelfNameKey(shelf.name) === key) return shelf;
    }
    throw permissionDenied();
  }

  private async ownShelfNamed(session: Session, name: string): Promise<Shelf> {
    const key = shelfNameKey(name.trim());
    for (let page = 1; ; page++) {
      const { items } = await this.shelves.listVisible(session.actor.id, true, { page, pageSize: 100 });
      const found = items.find((s) => shelfNameKey(s.name) === key);
      if (found) return found;
      if (items.length < 100) throw shelfNameTaken();
    }
  }
}
