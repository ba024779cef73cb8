import type { Actor } from '../../domain/actor.js';
import type { Book, BookFormat } from '../../domain/book.js';
import { bookNotFound } from '../../domain/error-catalogue.js';
import type { KoboDevice } from '../../domain/kobo-device.js';
import { canSeeShelf } from '../../domain/policies.js';
import type { BookRepository, KoboDeviceRepository, ShelfRepository } from '../ports.js';
import { findReadableBook } from './book-access.js';

/** The formats a Kobo reads: EPUB (served as KEPUB) and PDF. */
export const KOBO_FORMATS: readonly BookFormat[] = ['epub', 'pdf'];

/**
 * Which books one device gets: the books of a Kobo format the owner may read, not archived on it, and,
 * for a device limited to shelves, on one of those shelves (that the owner can still see).
 */
export interface KoboSyncScope {
  /** Whether the device is limited to shelves. */
  readonly limited: boolean;
  /** The books among these ids that the device gets, by id (missing, other formats, archived and out-of-scope ones left out). */
  booksAmong(ids: readonly string[]): Promise<Map<string, Book>>;
}

/** The device's scope now, its shelves read once. */
export async function koboSyncScope(actor: Actor, device: KoboDevice, devices: KoboDeviceRepository, books: BookRepository, shelves: ShelfRepository): Promise<KoboSyncScope> {
  const shelfBooks = await koboShelfBooks({ actor, device }, shelves);
  return {
    limited: shelfBooks !== null,
    async booksAmong(ids) {
      const wanted = [...new Set(ids)].filter((id) => shelfBooks === null || shelfBooks.has(id));
      if (wanted.length === 0) return new Map();
      const [found, archived] = await Promise.all([books.findByIds(wanted), devices.archivedAmong(device.id, wanted)]);
      return new Map(found.filter((b) => KOBO_FORMATS.includes(b.format) && !archived.has(b.id)).map((b) => [b.id, b]));
    },
  };
}

/** The books on the device's shelves (those the owner can still see), or null for a device not limited to shelves. */
export async function koboShelfBooks({ actor, device }: { readonly actor: Actor; readonly device: KoboDevice }, shelves: ShelfRepository): Promise<Set<string> | null> {
  if (device.shelfIds.length === 0) return null;
  const shelfBooks = new Set<string>();
  for (const shelfId of device.shelfIds) {
    const shelf = await shelves.findById(shelfId);
    if (shelf && canSeeShelf(actor, shelf)) shelf.bookIds.forEach((id) => shelfBooks.add(id));
  }
  return shelfBooks;
}

/**
 * A book the device may open (its file, metadata or reading state): one its owner may read (403
 * without books:read), of a Kobo format and, on a device limited to shelves, on one of them; any other
 * is a 404, as an unknown book is. A book archived on the device stays open to it (its last reading
 * state may still arrive).
 */
export async function findKoboBook(books: BookRepository, shelves: ShelfRepository, session: { readonly actor: Actor; readonly device: KoboDevice }, id: string): Promise<Book> {
  const book = await findReadableBook(books, session.actor, id);
  if (!KOBO_FORMATS.includes(book.format)) throw bookNotFound(id);
  const shelfBooks = await koboShelfBooks(session, shelves);
  if (shelfBooks && !shelfBooks.has(book.id)) throw bookNotFound(id);
  return book;
}
