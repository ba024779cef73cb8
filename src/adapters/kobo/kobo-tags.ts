import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import type { AddBookToShelf } from '../../application/use-cases/add-book-to-shelf.js';
import type { DeleteShelf } from '../../application/use-cases/delete-shelf.js';
import type { SaveKoboTag } from '../../application/use-cases/kobo-library.js';
import type { RemoveBookFromShelf } from '../../application/use-cases/remove-book-from-shelf.js';
import type { UpdateShelf } from '../../application/use-cases/update-shelf.js';
import { bookNotFound, bookNotOnShelf, hasCodeOf, invalidInput } from '../../domain/error-catalogue.js';
import type { KoboSession } from '../../application/use-cases/authenticate-kobo-device.js';
import { isCleanName, NAME_CONTROL_MESSAGE } from '../../domain/text.js';
import { koboJson } from './kobo-body.js';

export interface KoboTagDeps {
  readonly saveTag: SaveKoboTag;
  readonly updateShelf: UpdateShelf;
  readonly deleteShelf: DeleteShelf;
  readonly addBook: AddBookToShelf;
  readonly removeBook: RemoveBookFromShelf;
}

const Items = z.array(z.object({ Type: z.string().max(100), RevisionId: z.string().max(200).optional() })).max(10_000);
/** A collection name follows the name rules: no control character, tab or line break. */
const Name = z.string().max(1000).refine(isCleanName, NAME_CONTROL_MESSAGE);
const CreateBody = z.object({ Name, Items: Items.optional() });
const RenameBody = z.object({ Name });
const ItemsBody = z.object({ Items });

function parsed<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (!result.success) throw invalidInput('The collection request is invalid.', result.error.issues.map((i) => ({ field: i.path.join('.') || '(root)', message: i.message })));
  return result.data;
}

/** Book ids of `ProductRevisionTagItem` items; other item types (store books, bookmarks) are ignored. */
const bookIdsOf = (items: z.infer<typeof Items> | undefined): string[] =>
  (items ?? []).filter((i) => i.Type === 'ProductRevisionTagItem' && i.RevisionId).map((i) => i.RevisionId!);

/**
 * Kobo collections edited on the device, as the owner's shelves (with the shelf rules: a name taken
 * by another of the owner's shelves, shelves:write, ownership): create (or reuse by name) with items,
 * rename, delete, add items, remove items.
 */
export function koboTagRoutes(router: Router, deps: KoboTagDeps, json: (res: Response, status: number, body: unknown) => void): void {
  const body = koboJson('1mb');
  const actor = (res: Response) => (res.locals['koboSession'] as KoboSession).actor;
  const tagId = (req: Request) => String(req.params['tagId']);
  router.post('/v1/library/tags', body, async (req, res) => {
    const { Name, Items: items } = parsed(CreateBody, req.body);
    const shelf = await deps.saveTag.execute(actor(res), Name, bookIdsOf(items));
    json(res, 201, shelf.id);
  });
  router.put('/v1/library/tags/:tagId', body, async (req, res) => {
    const { Name } = parsed(RenameBody, req.body);
    await deps.updateShelf.execute(actor(res), { shelfId: tagId(req), name: Name });
    res.status(200).type('text/plain').send(' ');
  });
  router.delete('/v1/library/tags/:tagId', async (req, res) => {
    await deps.deleteShelf.execute(actor(res), tagId(req));
    res.status(200).type('text/plain').send(' ');
  });
  router.post('/v1/library/tags/:tagId/items', body, async (req, res) => {
    for (const bookId of bookIdsOf(parsed(ItemsBody, req.body).Items)) {
      await deps.addBook.execute(actor(res), { shelfId: tagId(req), bookId }).catch((e: unknown) => ignore(e, () => bookNotFound(bookId)));
    }
    res.status(201).end();
  });
  router.post('/v1/library/tags/:tagId/items/delete', body, async (req, res) => {
    for (const bookId of bookIdsOf(parsed(ItemsBody, req.body).Items)) {
      await deps.removeBook.execute(actor(res), { shelfId: tagId(req), bookId }).catch((e: unknown) => ignore(e, () => bookNotOnShelf(bookId)));
    }
    res.status(200).end();
  });
}

function ignore(error: unknown, expected: () => Error & { code: string }): void {
  if (!hasCodeOf(error, expected as never)) throw error;
}
