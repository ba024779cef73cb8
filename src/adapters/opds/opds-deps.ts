import type { Request } from 'express';
import type { Authenticate } from '../../application/use-cases/authenticate.js';
import type { GetBook } from '../../application/use-cases/get-book.js';
import type { GetBookCover } from '../../application/use-cases/get-book-cover.js';
import type { GetBookFile } from '../../application/use-cases/get-book-file.js';
import type { GetShelf } from '../../application/use-cases/get-shelf.js';
import type { ListBooks } from '../../application/use-cases/list-books.js';
import type { ListShelfBooks } from '../../application/use-cases/list-shelf-books.js';
import type { ListShelves } from '../../application/use-cases/list-shelves.js';
import type { LoginUser } from '../../application/use-cases/login-user.js';

/** The use cases both OPDS catalogs (1.2 at /opds, 2.0 at /opds/v2) read through. */
export interface OpdsDeps {
  readonly login: LoginUser;
  /** Re-checks a remembered Basic login like a bearer token (disabled, password changed, roles), and checks a personal API key given as the Basic password. */
  readonly authenticate: Authenticate;
  readonly listBooks: ListBooks;
  readonly getBook: GetBook;
  readonly file: GetBookFile;
  readonly cover: GetBookCover;
  readonly listShelves: ListShelves;
  readonly getShelf: GetShelf;
  readonly listShelfBooks: ListShelfBooks;
  /**
   * The absolute base URL for the search template and the authentication document: PUBLIC_URL when set,
   * else the request's own scheme and Host, so a reader elsewhere on the network can search.
   */
  readonly baseUrlOf: (req: Request) => string;
}
