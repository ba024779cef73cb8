import type { Actor } from '../../domain/actor.js';
import type { Book } from '../../domain/book.js';
import { bookNotFound, permissionDenied } from '../../domain/error-catalogue.js';
import { canReadBooks } from '../../domain/policies.js';
import type { BookRepository } from '../ports.js';
import type { Authority } from './authority.js';

/** The actor as confirmed just before it writes its own reading state: 401 when its credential went, 403 without books:read now. */
export async function confirmReader(authority: Authority, actor: Actor): Promise<Actor> {
  const { actor: current } = await authority.confirm(actor);
  if (!canReadBooks(current)) throw permissionDenied();
  return current;
}

/** The book, for an actor with books:read (403 without it); 404 when there is none. */
export async function findReadableBook(books: BookRepository, actor: Actor, id: string): Promise<Book> {
  if (!canReadBooks(actor)) throw permissionDenied();
  const book = await books.findById(id);
  if (!book) throw bookNotFound(id);
  return book;
}
