import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import type { KoboSession } from '../../application/use-cases/authenticate-kobo-device.js';
import type { EditKoboTags } from '../../application/use-cases/edit-kobo-tags.js';
import { invalidInput } from '../../domain/error-catalogue.js';
import { isCleanName, NAME_CONTROL_MESSAGE } from '../../domain/text.js';
import { koboJson } from './kobo-body.js';

export interface KoboTagDeps {
  readonly tags: EditKoboTags;
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
 * Kobo collections edited on the device, as the owner's shelves (EditKoboTags: the shelf rules, and a
 * device limited to shelves kept to them): create (or reuse by name) with items, rename, delete, add
 * items, remove items.
 */
export function koboTagRoutes(router: Router, deps: KoboTagDeps, json: (res: Response, status: number, body: unknown) => void): void {
  const body = koboJson('1mb');
  const session = (res: Response) => res.locals['koboSession'] as KoboSession;
  const tagId = (req: Request) => String(req.params['tagId']);
  router.post('/v1/library/tags', body, async (req, res) => {
    const { Name, Items: items } = parsed(CreateBody, req.body);
    const shelf = await deps.tags.create(session(res), Name, bookIdsOf(items));
    json(res, 201, shelf.id);
  });
  router.put('/v1/library/tags/:tagId', body, async (req, res) => {
    const { Name } = parsed(RenameBody, req.body);
    await deps.tags.rename(session(res), tagId(req), Name);
    res.status(200).type('text/plain').send(' ');
  });
  router.delete('/v1/library/tags/:tagId', async (req, res) => {
    await deps.tags.delete(session(res), tagId(req));
    res.status(200).type('text/plain').send(' ');
  });
  router.post('/v1/library/tags/:tagId/items', body, async (req, res) => {
    await deps.tags.addItems(session(res), tagId(req), bookIdsOf(parsed(ItemsBody, req.body).Items));
    res.status(201).end();
  });
  router.post('/v1/library/tags/:tagId/items/delete', body, async (req, res) => {
    await deps.tags.removeItems(session(res), tagId(req), bookIdsOf(parsed(ItemsBody, req.body).Items));
    res.status(200).end();
  });
}
