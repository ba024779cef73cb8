import { bookNotFound, shelfNameTaken, shelfNotFound } from '../../domain/error-catalogue.js';
import type { PageRequest } from '../../domain/page.js';
import { offsetOf } from '../../domain/page.js';
import type { Shelf } from '../../domain/shelf.js';
import { SHELF_BOOKS_MAX, shelfFull, shelfNameKey } from '../../domain/shelf-rules.js';
import type { ShelfDetailsPatch, ShelfRepository, Slice } from '../../application/ports.js';
import type { ShelfRecord } from './memory-database.js';
import { compareText, copy, MemoryDatabase } from './memory-database.js';

/** ShelfRepository over process memory; membership keeps insertion order and checks that books exist. */
export class InMemoryShelfRepository implements ShelfRepository {
  constructor(private readonly db: MemoryDatabase = new MemoryDatabase(), private readonly maxBooks = SHELF_BOOKS_MAX) {}

  async create(shelf: Shelf): Promise<void> {
    if (this.db.shelves.has(shelf.id)) throw new Error(`A shelf with id '${shelf.id}' already exists.`);
    this.assertNameFree(shelf.id, shelf.owner.id, shelf.name);
    this.assertBooksExist(shelf.bookIds);
    const { bookIds, bookCount, ...details } = shelf;
    this.db.shelves.set(shelf.id, { shelf: copy(details), books: new Set(bookIds) });
  }

  async updateDetails(id: string, patch: ShelfDetailsPatch, updatedAt: Date): Promise<boolean> {
    const record = this.db.shelves.get(id);
    if (!record) return false;
    if (patch.name !== undefined) this.assertNameFree(id, record.shelf.owner.id, patch.name);
    const { name = record.shelf.name, description = record.shelf.description, isPublic = record.shelf.isPublic } = patch;
    this.touch(record, { ...record.shelf, name, description, isPublic, updatedAt: copy(updatedAt) });
    return true;
  }

  async replaceBooks(shelfId: string, bookIds: readonly string[], updatedAt: Date): Promise<void> {
    const record = this.existing(shelfId);
    this.assertBooksExist(bookIds);
    record.books = new Set(bookIds);
    this.touch(record, { ...record.shelf, updatedAt: copy(updatedAt) });
  }

  async addBook(shelfId: string, bookId: string, updatedAt: Date): Promise<boolean> {
    const record = this.existing(shelfId);
    if (record.books.has(bookId)) return false;
    if (record.books.size >= this.maxBooks) throw shelfFull(this.maxBooks);
    this.assertBooksExist([bookId]);
    record.books.add(bookId);
    this.touch(record, { ...record.shelf, updatedAt: copy(updatedAt) });
    return true;
  }

  async removeBook(shelfId: string, bookId: string, updatedAt: Date): Promise<boolean> {
    const record = this.db.shelves.get(shelfId);
    if (!record?.books.delete(bookId)) return false;
    this.touch(record, { ...record.shelf, updatedAt: copy(updatedAt) });
    return true;
  }

  async removeBookEverywhere(bookId: string, updatedAt: Date): Promise<void> {
    for (const record of this.db.shelves.values()) {
      if (record.books.delete(bookId)) this.touch(record, { ...record.shelf, updatedAt: copy(updatedAt) });
    }
  }

  async delete(id: string): Promise<boolean> {
    return this.db.shelves.delete(id);
  }

  async findById(id: string): Promise<Shelf | null> {
    const record = this.db.shelves.get(id);
    return record ? toShelf(record) : null;
  }

  async listVisible(ownerId: string, onlyOwn: boolean, page: PageRequest): Promise<Slice<Shelf>> {
    const visible = [...this.db.shelves.values()]
      .filter(({ shelf }) => shelf.owner.id === ownerId || (!onlyOwn && shelf.isPublic))
      .sort((a, b) => compareText(shelfNameKey(a.shelf.name), shelfNameKey(b.shelf.name)) || compareText(a.shelf.id, b.shelf.id));
    const start = offsetOf(page);
    return { items: visible.slice(start, start + page.pageSize).map(toShelf), total: visible.length };
  }

  async bookIdsPage(shelfId: string, page: PageRequest): Promise<Slice<string>> {
    const books = [...(this.db.shelves.get(shelfId)?.books ?? [])];
    const start = offsetOf(page);
    return { items: books.slice(start, start + page.pageSize), total: books.length };
  }

  private existing(shelfId: string): ShelfRecord {
    const record = this.db.shelves.get(shelfId);
    if (!record) throw shelfNotFound(shelfId);
    return record;
  }

  private touch(record: ShelfRecord, details: ShelfRecord['shelf']): void {
    this.db.shelves.set(details.id, { shelf: details, books: record.books });
  }

  private assertNameFree(id: string, ownerId: string, name: string): void {
    const key = shelfNameKey(name);
    for (const { shelf: other } of this.db.shelves.values()) {
      if (other.id !== id && other.owner.id === ownerId && shelfNameKey(other.name) === key) {
        throw shelfNameTaken();
      }
    }
  }

  private assertBooksExist(bookIds: readonly string[]): void {
    const missing = bookIds.find((id) => !this.db.books.has(id));
    if (missing !== undefined) throw bookNotFound(missing);
  }
}

function toShelf(record: ShelfRecord): Shelf {
  const bookIds = [...record.books];
  return { ...copy(record.shelf), bookIds, bookCount: bookIds.length };
}
