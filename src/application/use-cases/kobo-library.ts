import type { Actor } from '../../domain/actor.js';
import type { Book } from '../../domain/book.js';
import { bookNotFound, hasCodeOf, shelfNameTaken } from '../../domain/error-catalogue.js';
import type { Shelf } from '../../domain/shelf.js';
import { shelfNameKey } from '../../domain/shelf-rules.js';
import type { BookRepository, KoboDeviceRepository, ShelfRepository } from '../ports.js';
import type { AddBookToShelf } from './add-book-to-shelf.js';
import type { KoboSession } from './authenticate-kobo-device.js';
import type { Authority } from './authority.js';
import { findReadableBook } from './book-access.js';
import type { CreateShelf } from './create-shelf.js';
import { findKoboBook } from './kobo-sync-scope.js';

/** A book's record as one Kobo may open it (its metadata and reading state): 404 for a book outside the device's scope, as its file is. */
export class GetKoboBook {
  constructor(
    private readonly books: BookRepository,
    private readonly shelves: ShelfRepository,
  ) {}

  async execute(session: Pick<KoboSession, 'actor' | 'device'>, bookId: string): Promise<Book> {
    return findKoboBook(this.books, this.shelves, session, bookId);
  }
}

/** Hides a book from one Kobo (the device's own "remove from library"); the book itself stays. */
export class ArchiveKoboBook {
  constructor(
    private readonly books: BookRepository,
    private readonly devices: KoboDeviceRepository,
    private readonly authority: Authority,
  ) {}

  async execute(actor: Actor, deviceId: string, bookId: string): Promise<void> {
    await findReadableBook(this.books, actor, bookId);
    // Decided again with the device and its owner as they are now (the device may have been removed meanwhile).
    const book = await findReadableBook(this.books, (await this.authority.confirm(actor)).actor, bookId);
    await this.devices.archive(deviceId, book.id);
  }
}

/**
 * A collection made on the Kobo, as a shelf of the device's owner: a new shelf, or the owner's shelf of
 * that name (shelf names are unique per owner), with the items Stacks knows added (others are ignored,
 * as Calibre-Web does). The shelf rules and permissions are CreateShelf's and AddBookToShelf's.
 */
export class SaveKoboTag {
  constructor(
    private readonly shelves: ShelfRepository,
    private readonly create: CreateShelf,
    private readonly addBook: AddBookToShelf,
  ) {}

  async execute(actor: Actor, name: string, bookIds: readonly string[]): Promise<Shelf> {
    let shelf = await this.create.execute(actor, { name }).catch(async (error: unknown) => {
      if (!hasCodeOf(error, shelfNameTaken)) throw error;
      return this.ownShelfNamed(actor, name);
    });
    for (const bookId of bookIds) {
      await this.addBook.execute(actor, { shelfId: shelf.id, bookId }).catch((error: unknown) => {
        if (!hasCodeOf(error, () => bookNotFound(bookId))) throw error;
      });
    }
    shelf = (await this.shelves.findById(shelf.id)) ?? shelf;
    return shelf;
  }

  private async ownShelfNamed(actor: Actor, name: string): Promise<Shelf> {
    const key = shelfNameKey(name.trim());
    for (let page = 1; ; page++) {
      const { items } = await this.shelves.listVisible(actor.id, true, { page, pageSize: 100 });
      const found = items.find((s) => shelfNameKey(s.name) === key);
      if (found) return found;
      if (items.length < 100) throw shelfNameTaken();
    }
  }
}
