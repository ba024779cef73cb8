import type { Book } from '../../domain/book.js';
import type { BookRepository, KoboDeviceRepository, ShelfRepository } from '../ports.js';
import type { KoboSession } from './authenticate-kobo-device.js';
import type { Authority } from './authority.js';
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

/**
 * Hides a book from one Kobo (the device's own "remove from library"); the book itself stays. Only a book
 * the device gets (findKoboBook): any other is 404, as an unknown book is, so a device limited to shelves
 * learns nothing of the books off them.
 */
export class ArchiveKoboBook {
  constructor(
    private readonly books: BookRepository,
    private readonly shelves: ShelfRepository,
    private readonly devices: KoboDeviceRepository,
    private readonly authority: Authority,
  ) {}

  async execute(session: Pick<KoboSession, 'actor' | 'device'>, bookId: string): Promise<void> {
    await findKoboBook(this.books, this.shelves, session, bookId);
    // Decided again with the device and its owner as they are now (the device may have been removed meanwhile).
    const { actor } = await this.authority.confirm(session.actor);
    const book = await findKoboBook(this.books, this.shelves, { actor, device: session.device }, bookId);
    await this.devices.archive(session.device.id, book.id);
  }
}
