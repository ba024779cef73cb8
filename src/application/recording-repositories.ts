import type { Book, BookQuery } from '../domain/book.js';
import type { MetadataPatch } from '../domain/book-metadata.js';
import { bookChange, memberChange, progressChange, shelfChange, type ChangeRecord } from '../domain/change-feed.js';
import type { PageRequest } from '../domain/page.js';
import type { StoredProgress } from '../domain/reading-progress.js';
import type { Shelf } from '../domain/shelf.js';
import type { BookRepository, ChangeFeedRepository, Clock, ProgressRepository, ShelfDetailsPatch, ShelfRepository, Slice } from './ports.js';

/**
 * The book, shelf and progress repositories every writer uses, each write followed by its entry in the
 * change feed (after it commits, so a reader that sees the entry sees the write). What a crash between
 * the two leaves out, housekeeping puts back for books and reading states (BackfillChangeFeed); a later
 * change of the shelf or shelf entry does for those.
 */
export function recordingRepositories<T extends { books: BookRepository; shelves: ShelfRepository; progress: ProgressRepository }>(
  repositories: T, feed: ChangeFeedRepository, clock: Clock,
): { books: BookRepository; shelves: ShelfRepository; progress: ProgressRepository } {
  const record = (changes: readonly ChangeRecord[]) => feed.record(changes, clock.now());
  return {
    books: new RecordingBooks(repositories.books, record),
    shelves: new RecordingShelves(repositories.shelves, record),
    progress: new RecordingProgress(repositories.progress, record),
  };
}

type Record = (changes: readonly ChangeRecord[]) => Promise<void>;

class RecordingBooks implements BookRepository {
  constructor(private readonly inner: BookRepository, private readonly record: Record) {}

  async create(book: Book): Promise<void> {
    await this.inner.create(book);
    await this.record([bookChange(book.id)]);
  }

  async updateMetadata(id: string, patch: MetadataPatch, updatedAt: Date): Promise<Book | null> {
    const stored = await this.inner.updateMetadata(id, patch, updatedAt);
    if (stored) await this.record([bookChange(id)]);
    return stored;
  }

  async delete(id: string): Promise<boolean> {
    const deleted = await this.inner.delete(id);
    if (deleted) await this.record([bookChange(id, true)]);
    return deleted;
  }

  findById = (id: string) => this.inner.findById(id);
  findBySha256 = (sha256: string) => this.inner.findBySha256(sha256);
  findByIds = (ids: readonly string[]) => this.inner.findByIds(ids);
  existingIds = (ids: readonly string[]) => this.inner.existingIds(ids);
  search = (query: BookQuery): Promise<Slice<Book>> => this.inner.search(query);
}

class RecordingShelves implements ShelfRepository {
  constructor(private readonly inner: ShelfRepository, private readonly record: Record) {}

  async create(shelf: Shelf): Promise<void> {
    await this.inner.create(shelf);
    await this.record([shelfChange(shelf.id, shelf.owner.id), ...[...new Set(shelf.bookIds)].map((b) => memberChange(shelf.id, b))]);
  }

  /**
   * A change of who may see the shelf moves every entry of it too, so another user's device limited to
   * the shelf reads its books again: made private, they are out of that device's scope and removed from it
   * (entries kept, so it may hold them); made public, they come as new (entries started anew).
   */
  async updateDetails(id: string, patch: ShelfDetailsPatch, updatedAt: Date): Promise<boolean> {
    const before = patch.isPublic === undefined ? null : await this.inner.findById(id);
    const updated = await this.inner.updateDetails(id, patch, updatedAt);
    if (!updated) return false;
    const books = before && before.isPublic !== patch.isPublic ? [...new Set(before.bookIds)] : [];
    await this.touched(id, books.flatMap((b) => (patch.isPublic ? [memberChange(id, b, true), memberChange(id, b)] : [memberChange(id, b)])));
    return true;
  }

  async replaceBooks(shelfId: string, bookIds: readonly string[], updatedAt: Date): Promise<void> {
    const before = new Set((await this.inner.findById(shelfId))?.bookIds ?? []);
    await this.inner.replaceBooks(shelfId, bookIds, updatedAt);
    const after = new Set(bookIds);
    const members = [...[...after].filter((b) => !before.has(b)).map((b) => memberChange(shelfId, b)),
      ...[...before].filter((b) => !after.has(b)).map((b) => memberChange(shelfId, b, true))];
    await this.touched(shelfId, members);
  }

  async addBook(shelfId: string, bookId: string, updatedAt: Date): Promise<boolean> {
    const added = await this.inner.addBook(shelfId, bookId, updatedAt);
    if (added) await this.touched(shelfId, [memberChange(shelfId, bookId)]);
    return added;
  }

  async removeBook(shelfId: string, bookId: string, updatedAt: Date): Promise<boolean> {
    const removed = await this.inner.removeBook(shelfId, bookId, updatedAt);
    if (removed) await this.touched(shelfId, [memberChange(shelfId, bookId, true)]);
    return removed;
  }

  async delete(id: string): Promise<boolean> {
    const shelf = await this.inner.findById(id);
    const deleted = await this.inner.delete(id);
    if (deleted && shelf) await this.record([...shelf.bookIds.map((b) => memberChange(id, b, true)), shelfChange(id, shelf.owner.id, true)]);
    return deleted;
  }

  removeBookEverywhere = (bookId: string, updatedAt: Date) => this.inner.removeBookEverywhere(bookId, updatedAt);
  findById = (id: string) => this.inner.findById(id);
  listVisible = (ownerId: string, onlyOwn: boolean, page: PageRequest) => this.inner.listVisible(ownerId, onlyOwn, page);
  bookIdsPage = (shelfId: string, page: PageRequest) => this.inner.bookIdsPage(shelfId, page);

  /** The shelf's own entry moves after its member entries, so a reader of both sees the tag with its new items. */
  private async touched(shelfId: string, members: readonly ChangeRecord[]): Promise<void> {
    const shelf = await this.inner.findById(shelfId);
    await this.record(shelf ? [...members, shelfChange(shelfId, shelf.owner.id)] : members);
  }
}

class RecordingProgress implements ProgressRepository {
  constructor(private readonly inner: ProgressRepository, private readonly record: Record) {}

  async put(progress: StoredProgress): Promise<void> {
    await this.inner.put(progress);
    await this.record([progressChange(progress.userId, progress.bookId)]);
  }

  async deleteOne(userId: string, bookId: string): Promise<boolean> {
    const deleted = await this.inner.deleteOne(userId, bookId);
    if (deleted) await this.record([progressChange(userId, bookId, true)]);
    return deleted;
  }

  get = (userId: string, bookId: string) => this.inner.get(userId, bookId);
  findMany = (userId: string, bookIds: readonly string[]) => this.inner.findMany(userId, bookIds);
  deleteForBook = (bookId: string) => this.inner.deleteForBook(bookId);
  deleteForUser = (userId: string) => this.inner.deleteForUser(userId);
}
