import { instanceCachingFactory, type DependencyContainer } from 'tsyringe';
import type { BookRepository, Clock, IdGenerator, ShelfRepository } from '../application/ports.js';
import { AddBookToShelf } from '../application/use-cases/add-book-to-shelf.js';
import { CreateShelf } from '../application/use-cases/create-shelf.js';
import { DeleteShelf } from '../application/use-cases/delete-shelf.js';
import { GetShelf } from '../application/use-cases/get-shelf.js';
import { ListShelfBooks } from '../application/use-cases/list-shelf-books.js';
import { ListShelves } from '../application/use-cases/list-shelves.js';
import { RemoveBookFromShelf } from '../application/use-cases/remove-book-from-shelf.js';
import { UpdateShelf } from '../application/use-cases/update-shelf.js';
import type { AnyRoute } from '../adapters/http/route.js';
import { shelfRoutes } from '../adapters/http/shelves.routes.js';
import { TOKENS as T } from './tokens.js';

/** DI tokens of the shelf use cases. */
export const SHELF_TOKENS = {
  ListShelves: Symbol('ListShelves'),
  CreateShelf: Symbol('CreateShelf'),
  GetShelf: Symbol('GetShelf'),
  UpdateShelf: Symbol('UpdateShelf'),
  DeleteShelf: Symbol('DeleteShelf'),
  ListShelfBooks: Symbol('ListShelfBooks'),
  AddBookToShelf: Symbol('AddBookToShelf'),
  RemoveBookFromShelf: Symbol('RemoveBookFromShelf'),
} as const;
const S = SHELF_TOKENS;

/** Registers the shelf use cases over the store's repositories (which buildContainer registers first). */
export function registerShelves(di: DependencyContainer): void {
  const shelves = (c: DependencyContainer) => c.resolve<ShelfRepository>(T.ShelfRepository);
  const books = (c: DependencyContainer) => c.resolve<BookRepository>(T.BookRepository);
  const clock = (c: DependencyContainer) => c.resolve<Clock>(T.Clock);
  const ids = (c: DependencyContainer) => c.resolve<IdGenerator>(T.Ids);

  singleton(di, S.ListShelves, (c) => new ListShelves(shelves(c)));
  singleton(di, S.CreateShelf, (c) => new CreateShelf(shelves(c), books(c), clock(c), ids(c)));
  singleton(di, S.GetShelf, (c) => new GetShelf(shelves(c)));
  singleton(di, S.UpdateShelf, (c) => new UpdateShelf(shelves(c), books(c), clock(c)));
  singleton(di, S.DeleteShelf, (c) => new DeleteShelf(shelves(c)));
  singleton(di, S.ListShelfBooks, (c) => new ListShelfBooks(shelves(c), books(c)));
  singleton(di, S.AddBookToShelf, (c) => new AddBookToShelf(shelves(c), books(c), clock(c)));
  singleton(di, S.RemoveBookFromShelf, (c) => new RemoveBookFromShelf(shelves(c), clock(c)));
}

/** The /api/shelves routes, from the registered use cases. */
export function shelfRoutesFrom(di: DependencyContainer): AnyRoute[] {
  return shelfRoutes({
    list: di.resolve(S.ListShelves),
    create: di.resolve(S.CreateShelf),
    get: di.resolve(S.GetShelf),
    update: di.resolve(S.UpdateShelf),
    remove: di.resolve(S.DeleteShelf),
    listBooks: di.resolve(S.ListShelfBooks),
    addBook: di.resolve(S.AddBookToShelf),
    removeBook: di.resolve(S.RemoveBookFromShelf),
  });
}

function singleton<V>(di: DependencyContainer, token: symbol, factory: (c: DependencyContainer) => V): void {
  di.register<V>(token, { useFactory: instanceCachingFactory<V>(factory) });
}
