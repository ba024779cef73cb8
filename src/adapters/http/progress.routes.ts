import type { DeleteProgress } from '../../application/use-cases/delete-progress.js';
import type { GetProgress } from '../../application/use-cases/get-progress.js';
import type { UpdateProgress } from '../../application/use-cases/update-progress.js';
import { presentProgress } from './presenters/progress-presenter.js';
import { route, type AnyRoute } from './route.js';
import { BookParams } from './schemas/books.js';
import { ProgressSchema, UpdateProgressBody } from './schemas/progress.js';

export interface ProgressDeps {
  readonly get: GetProgress;
  readonly update: UpdateProgress;
  readonly remove: DeleteProgress;
}

const tag = 'Reading progress';

export function progressRoutes(deps: ProgressDeps): AnyRoute[] {
  return [
    route({
      operationId: 'getProgress',
      method: 'get', path: '/api/books/{id}/progress', summary: 'The caller\'s reading state of a book (unread when never opened)', tag, auth: true,
      params: BookParams,
      responses: { 200: { description: 'The reading state', schema: ProgressSchema } },
      errors: [403, 404],
      async handle({ auth, params, res }) {
        res.json(presentProgress(await deps.get.execute(auth.actor, params.id)));
      },
    }),
    route({
      operationId: 'updateProgress',
      method: 'put', path: '/api/books/{id}/progress', summary: 'Record the caller\'s reading state of a book', tag, auth: true,
      params: BookParams, body: UpdateProgressBody,
      responses: { 200: { description: 'The stored reading state', schema: ProgressSchema } },
      errors: [403, 404],
      async handle({ auth, params, body, res }) {
        const { device_id: deviceId, ...rest } = body;
        const update = { ...rest, ...(deviceId !== undefined ? { deviceId } : {}) };
        res.json(presentProgress(await deps.update.execute(auth.actor, { bookId: params.id, update })));
      },
    }),
    route({
      operationId: 'deleteProgress',
      method: 'delete', path: '/api/books/{id}/progress', summary: 'Forget the caller\'s reading state of a book (unread again)', tag, auth: true,
      params: BookParams,
      responses: { 204: { description: 'Forgotten' } },
      errors: [403, 404],
      async handle({ auth, params, res }) {
        await deps.remove.execute(auth.actor, params.id);
        res.status(204).end();
      },
    }),
  ];
}
