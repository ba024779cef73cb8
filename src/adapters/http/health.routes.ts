import type { HealthCheck } from '../../application/ports.js';
import { notReady } from '../../domain/error-catalogue.js';
import { route, type AnyRoute } from './route.js';
import { z } from './zod.js';

const Status = z.object({ status: z.string() }).strict().openapi('Status');
/** The probes' only client errors: what the HTTP server answers before any route runs (http-server.ts). */
const refusedByServer = { description: 'Refused before routing: a malformed request (400), headers too slow (408) or too large (431); no body' };

export function healthRoutes(health: HealthCheck): AnyRoute[] {
  return [
    route({
      operationId: 'checkLiveness',
      method: 'get', path: '/healthz', summary: 'Liveness: the process runs', tag: 'Operations', auth: false,
      responses: { 200: { description: 'Alive', schema: Status }, '4XX': refusedByServer },
      handle({ res }) {
        res.json({ status: 'ok' });
      },
    }),
    route({
      operationId: 'checkReadiness',
      method: 'get', path: '/readyz', summary: 'Readiness: the store answers', tag: 'Operations', auth: false,
      responses: { 200: { description: 'Ready', schema: Status }, '4XX': refusedByServer },
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
