import type { Actor } from '../../domain/actor.js';
import type { Book, BookFormat } from '../../domain/book.js';
import type { KoboDevice } from '../../domain/kobo-device.js';
import { canSeeShelf } from '../../domain/policies.js';
import type { BookRepository, KoboDeviceRepository, ShelfRepository } from '../ports.js';

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
  let shelfBooks: Set<string> | null = null;
  if (device.shelfIds.length > 0) {
    shelfBooks = new Set<string>();
    for (const shelfId of device.shelfIds) {
      const shelf = await shelves.findById(shelfId);
      if (shelf && canSeeShelf(actor, shelf)) shelf.bookIds.forEach((id) => shelfBooks!.add(id));
    }
  }
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
