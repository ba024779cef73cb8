import type { Actor } from '../../domain/actor.js';
import type { BookRepository, ProgressRepository } from '../ports.js';
import type { Authority } from './authority.js';
import { confirmReader, findReadableBook } from './book-access.js';

/** Forgets the caller's reading state of a book: it is unread again. Idempotent. */
export class DeleteProgress {
  constructor(
    private readonly books: BookRepository,
    private readonly progress: ProgressRepository,
    private readonly authority: Authority,
  ) {}

  async execute(actor: Actor, bookId: string): Promise<void> {
    const book = await findReadableBook(this.books, actor, bookId);
    await confirmReader(this.authority, actor);
    await this.progress.deleteOne(actor.id, book.id);
  }
}
