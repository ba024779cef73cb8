import type { AddBookToShelf } from '../../application/use-cases/add-book-to-shelf.js';
import type { CreateShelf } from '../../application/use-cases/create-shelf.js';
import type { DeleteShelf } from '../../application/use-cases/delete-shelf.js';
import type { GetShelf } from '../../application/use-cases/get-shelf.js';
import type { ListShelfBooks } from '../../application/use-cases/list-shelf-books.js';
import type { ListShelves } from '../../application/use-cases/list-shelves.js';
import type { RemoveBookFromShelf } from '../../application/use-cases/remove-book-from-shelf.js';
import type { UpdateShelf } from '../../application/use-cases/update-shelf.js';
import { presentBook } from './presenters/book-presenter.js';
import { presentShelf } from './presenters/shelf-presenter.js';
import { route, type AnyRoute } from './route.js';
import { BookListSchema } from './schemas/books.js';
import { presentPage } from './schemas/common.js';
import {
  CreateShelfBody, ShelfBookParams, ShelfBooksQuery, ShelfListQuery, ShelfListSchema, ShelfParams,
  ShelfSchema, UpdateShelfBody,
} from './schemas/shelves.js';

export interface ShelfDeps {
  readonly list: ListShelves;
  readonly create: CreateShelf;
  readonly get: GetShelf;
  readonly update: UpdateShelf;
  readonly remove: DeleteShelf;
  readonly listBooks: ListShelfBooks;
  readonly addBook: AddBookToShelf;
  readonly removeBook: RemoveBookFromShelf;
}

const tag = 'Shelves';
/** Room for 10,000 ids in one body. */
const bodyLimit = '1mb';

export function shelfRoutes(deps: ShelfDeps): AnyRoute[] {
  return [
    route({
      operationId: 'listShelves',
      method: 'get', path: '/api/shelves', summary: 'List own shelves and every public shelf', tag, auth: true, query: ShelfListQuery,
      responses: { 200: { description: 'A page of shelves, by name', schema: ShelfListSchema } },
      errors: [403],
      async handle({ auth, query, res }) {
        const page = await deps.list.execute(auth.actor, { onlyOwn: query.owner === 'me', page: query.page, pageSize: query.page_size });
        res.json(presentPage(page, presentShelf));
      },
    }),
    route({
      operationId: 'createShelf',
      method: 'post', path: '/api/shelves', summary: 'Create a shelf', tag, auth: true, body: CreateShelfBody, bodyLimit,
      responses: { 201: { description: 'The new shelf', schema: ShelfSchema } },
      errors: [403, 409],
      async handle({ auth, body, res }) {
        const shelf = await deps.create.execute(auth.actor, {
          name: body.name, description: body.description, isPublic: body.is_public, bookIds: body.book_ids,
        });
        res.status(201).location(`/api/shelves/${shelf.id}`).json(presentShelf(shelf));
      },
    }),
    route({
      operationId: 'getShelf',
      method: 'get', path: '/api/shelves/{id}', summary: 'Read a shelf', tag, auth: true, params: ShelfParams,
      responses: { 200: { description: 'The shelf', schema: ShelfSchema } },
      errors: [403, 404],
      async handle({ auth, params, res }) {
        res.json(presentShelf(await deps.get.execute(auth.actor, params.id)));
      },
    }),
    route({
      operationId: 'updateShelf',
      method: 'patch', path: '/api/shelves/{id}', summary: 'Rename, describe, publish or reorder a shelf', tag, auth: true,
      params: ShelfParams, body: UpdateShelfBody, bodyLimit,
      responses: { 200: { description: 'The updated shelf', schema: ShelfSchema } },
      errors: [403, 404, 409],
      async handle({ auth, params, body, res }) {
        const shelf = await deps.update.execute(auth.actor, {
          shelfId: params.id, name: body.name, description: body.description, isPublic: body.is_public, bookIds: body.book_ids,
        });
        res.json(presentShelf(shelf));
      },
    }),
    route({
      operationId: 'deleteShelf',
      method: 'delete', path: '/api/shelves/{id}', summary: 'Delete a shelf; its books stay', tag, auth: true, params: ShelfParams,
      responses: { 204: { description: 'Deleted' } },
      errors: [403, 404],
      async handle({ auth, params, res }) {
        await deps.remove.execute(auth.actor, params.id);
        res.status(204).end();
      },
    }),
    route({
      operationId: 'listShelfBooks',
      method: 'get', path: '/api/shelves/{id}/books', summary: 'The books on a shelf, in shelf order', tag, auth: true,
      params: ShelfParams, query: ShelfBooksQuery,
      responses: { 200: { description: 'A page of books', schema: BookListSchema } },
      errors: [403, 404],
      async handle({ auth, params, query, res }) {
        const page = await deps.listBooks.execute(auth.actor, { shelfId: params.id, page: query.page, pageSize: query.page_size });
        res.json(presentPage(page, presentBook));
      },
    }),
    route({
      operationId: 'addBookToShelf',
      method: 'put', path: '/api/shelves/{id}/books/{book_id}', summary: 'Add a book at the end of a shelf (idempotent)', tag,
      auth: true, params: ShelfBookParams,
      responses: { 204: { description: 'The book is on the shelf' } },
      errors: [403, 404],
      async handle({ auth, params, res }) {
        await deps.addBook.execute(auth.actor, { shelfId: params.id, bookId: params.book_id });
        res.status(204).end();
      },
    }),
    route({
      operationId: 'removeBookFromShelf',
      method: 'delete', path: '/api/shelves/{id}/books/{book_id}', summary: 'Take a book off a shelf', tag, auth: true,
      params: ShelfBookParams,
      responses: { 204: { description: 'Removed' } },
      errors: [403, 404],
      async handle({ auth, params, res }) {
        await deps.removeBook.execute(auth.actor, { shelfId: params.id, bookId: params.book_id });
        res.status(204).end();
      },
    }),
  ];
}
