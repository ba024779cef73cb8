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
export class KoboSyncScope {
  private constructor(
    private readonly devices: KoboDeviceRepository,
    private readonly books: BookRepository,
    readonly device: KoboDevice,
    /** The books of the chosen shelves; null when every book syncs. */
    readonly shelfBooks: ReadonlySet<string> | null,
  ) {}

  static async of(actor: Actor, device: KoboDevice, devices: KoboDeviceRepository, books: BookRepository, shelves: ShelfRepository): Promise<KoboSyncScope> {
    if (device.shelfIds.length === 0) return new KoboSyncScope(devices, books, device, null);
    const ids = new Set<string>();
    for (const shelfId of device.shelfIds) {
      const shelf = await shelves.findById(shelfId);
      if (shelf && canSeeShelf(actor, shelf)) shelf.bookIds.forEach((id) => ids.add(id));
    }
    return new KoboSyncScope(devices, books, device, ids);
  }

  get limited(): boolean {
    return this.shelfBooks !== null;
  }

  /** The books among these ids that the device gets, by id (missing, other formats, archived and out-of-scope ones left out). */
  async booksAmong(ids: readonly string[]): Promise<Map<string, Book>> {
    const wanted = [...new Set(ids)].filter((id) => this.shelfBooks === null || this.shelfBooks.has(id));
    if (wanted.length === 0) return new Map();
    const [found, archived] = await Promise.all([this.books.findByIds(wanted), this.devices.archivedAmong(this.device.id, wanted)]);
    return new Map(found.filter((b) => KOBO_FORMATS.includes(b.format) && !archived.has(b.id)).map((b) => [b.id, b]));
  }
}
