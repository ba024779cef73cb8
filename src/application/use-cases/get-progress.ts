import type { Actor } from '../../domain/actor.js';
import { unreadProgress, type ReadingProgress } from '../../domain/reading-progress.js';
import type { BookRepository, ProgressRepository } from '../ports.js';
import { findReadableBook } from './book-access.js';

/** The caller's reading state of a book they can read; `unread` when they never opened it. */
export class GetProgress {
  constructor(
    private readonly books: BookRepository,
    private readonly progress: ProgressRepository,
  ) {}

  async execute(actor: Actor, bookId: string): Promise<ReadingProgress> {
    const book = await findReadableBook(this.books, actor, bookId);
    return (await this.progress.get(actor.id, book.id)) ?? unreadProgress(actor.id, book.id);
  }
}
