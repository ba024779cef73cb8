import type { DependencyContainer } from 'tsyringe';
import type { MountedRouter } from '../adapters/http/app.js';
import { opdsRouter } from '../adapters/opds/opds-router.js';
import { BOOK_TOKENS as B } from './books-module.js';
import type { Config } from './config.js';
import { SHELF_TOKENS as S } from './shelves-module.js';
import { TOKENS as T } from './tokens.js';

/** The OPDS catalog at /opds, over the registered book, shelf and login use cases (no use case of its own). */
export function opdsRoutersFrom(di: DependencyContainer): MountedRouter[] {
  const router = opdsRouter({
    login: di.resolve(T.LoginUser),
    authenticate: di.resolve(T.Authenticate),
    listBooks: di.resolve(B.ListBooks),
    getBook: di.resolve(B.GetBook),
    file: di.resolve(B.GetBookFile),
    cover: di.resolve(B.GetBookCover),
    listShelves: di.resolve(S.ListShelves),
    getShelf: di.resolve(S.GetShelf),
    listShelfBooks: di.resolve(S.ListShelfBooks),
    publicUrl: di.resolve<Config>(T.Config).publicUrl,
  });
  return [{ path: '/opds', router }];
}
