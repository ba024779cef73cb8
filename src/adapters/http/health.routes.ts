import type { HealthCheck } from '../../application/ports.js';
import { notReady } from '../../domain/error-catalogue.js';
import { route, type AnyRoute } from './route.js';
import { z } from './zod.js';

const Status = z.object({ status: z.string() }).strict().openapi('Status');

export function healthRoutes(health: HealthCheck): AnyRoute[] {
  return [
    route({
      method: 'get', path: '/healthz', summary: 'Liveness: the process runs', tag: 'Operations', auth: false,
      responses: { 200: { description: 'Alive', schema: Status } },
      handle({ res }) {
        res.json({ status: 'ok' });
      },
    }),
    route({
      method: 'get', path: '/readyz', summary: 'Readiness: the store answers', tag: 'Operations', auth: false,
      responses: { 200: { description: 'Ready', schema: Status } },
      errors: [503],
      async handle({ res }) {
        try {
          await health.ping();
        } catch {
          throw notReady();
        }
        res.json({ status: 'ready' });
      },
    }),
  ];
}
