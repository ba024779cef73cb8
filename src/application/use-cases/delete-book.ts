import type { Actor } from '../../domain/actor.js';
import { bookCoverKey, bookFileKey } from '../../domain/book.js';
import { bookNotFound, permissionDenied } from '../../domain/error-catalogue.js';
import { canDeleteBook } from '../../domain/policies.js';
import type { BlobStore, BookDigestRepository, BookRepository, Clock, ProgressRepository, ShelfRepository } from '../ports.js';
import type { Authority } from './authority.js';
import { findReadableBook } from './book-access.js';

/** Deletes a book: the record first (nothing visible points at a missing file), then shelf entries, reading progress, KOReader digests and blobs. */
export class DeleteBook {
  constructor(
    private readonly books: BookRepository,
    private readonly shelves: ShelfRepository,
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
    private readonly progress: ProgressRepository,
    private readonly digests: BookDigestRepository,
    private readonly authority: Authority,
  ) {}

  async execute(actor: Actor, id: string): Promise<void> {
    const book = await findReadableBook(this.books, actor, id);
    if (!canDeleteBook(actor, book)) throw permissionDenied();
    if (!canDeleteBook((await this.authority.confirm(actor)).actor, book)) throw permissionDenied();
    if (!(await this.books.delete(book.id))) throw bookNotFound(id);
    await this.shelves.removeBookEverywhere(book.id, this.clock.now());
    // Already gone where the store cascades (SQLite, memory); MongoDB has no foreign keys.
    await this.progress.deleteForBook(book.id);
    await this.digests.deleteForBook(book.id);
    // Blobs without a record are orphans: if a delete fails here, the start-up reconciler removes them.
    await Promise.all([bookFileKey(book.id), bookCoverKey(book.id)].map((key) => this.blobs.delete(key).catch(() => undefined)));
  }
}
