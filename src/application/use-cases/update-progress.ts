import type { Actor } from '../../domain/actor.js';
import { bookNotFound } from '../../domain/error-catalogue.js';
import { recordProgress, type ProgressUpdate, type StoredProgress } from '../../domain/reading-progress.js';
import type { BookRepository, Clock, ProgressRepository } from '../ports.js';
import type { Authority } from './authority.js';
import { confirmReader, findReadableBook } from './book-access.js';

export interface UpdateProgressInput {
  readonly bookId: string;
  readonly update: ProgressUpdate;
}

/**
 * Records the caller's reading state of a book: one upsert of the (user, book) record, the book itself
 * untouched. A book deleted meanwhile keeps no progress: the write is undone and the caller gets 404.
 */
export class UpdateProgress {
  constructor(
    private readonly books: BookRepository,
    private readonly progress: ProgressRepository,
    private readonly clock: Clock,
    private readonly authority: Authority,
  ) {}

  async execute(actor: Actor, input: UpdateProgressInput): Promise<StoredProgress> {
    const book = await findReadableBook(this.books, actor, input.bookId);
    await confirmReader(this.authority, actor);
    const record = recordProgress(actor.id, book.id, input.update, this.clock.now());
    await this.progress.put(record);
    // Stores without foreign keys (MongoDB) cannot refuse the write themselves.
    if (!(await this.books.existingIds([book.id])).has(book.id)) {
      await this.progress.deleteOne(actor.id, book.id);
      throw bookNotFound(input.bookId);
    }
    return record;
  }
}
