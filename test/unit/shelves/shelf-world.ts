import type { Clock, IdGenerator } from '../../../src/application/ports.js';
import { AddBookToShelf } from '../../../src/application/use-cases/add-book-to-shelf.js';
import { CreateShelf } from '../../../src/application/use-cases/create-shelf.js';
import { DeleteShelf } from '../../../src/application/use-cases/delete-shelf.js';
import { GetShelf } from '../../../src/application/use-cases/get-shelf.js';
import { ListShelfBooks } from '../../../src/application/use-cases/list-shelf-books.js';
import { ListShelves } from '../../../src/application/use-cases/list-shelves.js';
import { RemoveBookFromShelf } from '../../../src/application/use-cases/remove-book-from-shelf.js';
import { UpdateShelf } from '../../../src/application/use-cases/update-shelf.js';
import { InMemoryBookRepository } from '../../../src/adapters/memory/in-memory-book-repository.js';
import { InMemoryShelfRepository } from '../../../src/adapters/memory/in-memory-shelf-repository.js';
import { MemoryDatabase } from '../../../src/adapters/memory/memory-database.js';
import { actorFor, type Actor } from '../../../src/domain/actor.js';
import type { Book } from '../../../src/domain/book.js';
import type { RoleName } from '../../../src/domain/permissions.js';
import { aBook } from '../../support/builders.js';

/** A clock that stands still until moved. */
export class FixedClock implements Clock {
  constructor(private current = new Date('2026-11-22T10:00:00.000Z')) {}
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

/** Ids `shelf-1`, `shelf-2`, ... in order. */
export class SequentialIds implements IdGenerator {
  private n = 0;
  constructor(private readonly prefix: string) {}
  next(): string {
    this.n += 1;
    return `${this.prefix}-${this.n}`;
  }
}

const actor = (id: string, roles: RoleName[]): Actor => actorFor({ id, username: id, roles });

export const alice = actor('alice', ['user']);
export const bob = actor('bob', ['user']);
export const admin = actor('root', ['admin']);
export const reader = actor('rita', ['reader']);
export const nobody = actor('nobody', []);

/** Every shelf use case over one in-memory store, a fixed clock and sequential ids. */
export function shelfWorld() {
  const db = new MemoryDatabase();
  const shelves = new InMemoryShelfRepository(db);
  const books = new InMemoryBookRepository(db);
  const clock = new FixedClock();
  const ids = new SequentialIds('shelf');
  return {
    shelves,
    books,
    clock,
    list: new ListShelves(shelves),
    create: new CreateShelf(shelves, books, clock, ids),
    get: new GetShelf(shelves),
    update: new UpdateShelf(shelves, books, clock),
    remove: new DeleteShelf(shelves),
    listBooks: new ListShelfBooks(shelves, books),
    addBook: new AddBookToShelf(shelves, books, clock),
    removeBook: new RemoveBookFromShelf(shelves, clock),
    /** Stores n books and returns them in order. */
    async storeBooks(n: number): Promise<Book[]> {
      const stored: Book[] = [];
      for (let i = 0; i < n; i++) {
        const book = aBook();
        await books.create(book);
        stored.push(book);
      }
      return stored;
    },
  };
}

export type ShelfWorld = ReturnType<typeof shelfWorld>;

/** Runs work and returns the coded error it throws (fails when it does not throw). */
export async function errorOf(work: Promise<unknown>): Promise<{ kind: string; code: string; errors?: unknown }> {
  try {
    await work;
  } catch (error) {
    return error as { kind: string; code: string; errors?: unknown };
  }
  throw new Error('expected an error, but the call succeeded');
}
