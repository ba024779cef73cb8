import type { Request } from 'express';
import type { CreateKoboDevice, ListKoboDevices, RevokeKoboDevice } from '../../application/use-cases/kobo-devices.js';
import type { KoboDevice } from '../../domain/kobo-device.js';
import { route, type AnyRoute } from './route.js';
import { presentPage } from './schemas/common.js';
import {
  CreateKoboDeviceBody, CreatedKoboDeviceSchema, KoboDeviceListQuery, KoboDeviceListSchema, KoboDeviceParams, type KoboDeviceSchema,
} from './schemas/kobo-devices.js';
import type { z } from './zod.js';

export interface KoboDeviceDeps {
  readonly create: CreateKoboDevice;
  readonly list: ListKoboDevices;
  readonly revoke: RevokeKoboDevice;
  /** The sync URL is `{base}/kobo/{secret}`: PUBLIC_URL when set, else the scheme and host the request came by. */
  readonly baseUrlOf: (req: Request) => string;
}

const tag = 'Kobo sync';

/** A device as listed: never the secret (it is not stored) nor its digest. */
const presentDevice = (device: KoboDevice) => ({
  id: device.id, name: device.name, shelf_ids: [...device.shelfIds], last_used_at: device.lastUsedAt?.toISOString() ?? null,
  created_at: device.createdAt.toISOString(),
}) satisfies z.infer<typeof KoboDeviceSchema>;

/** The caller's Kobo devices and their sync URLs (docs/kobo.md); only a signed-in session manages them. */
export function koboDeviceRoutes(deps: KoboDeviceDeps): AnyRoute[] {
  return [
    route({
      method: 'post', path: '/api/auth/kobo', operationId: 'createKoboDevice', summary: 'Add a Kobo device: its sync URL is shown once', tag, auth: true,
      body: CreateKoboDeviceBody,
      responses: { 201: { description: 'The device, with its sync URL `url`', schema: CreatedKoboDeviceSchema } },
      errors: [403],
      async handle({ auth, body, req, res }) {
        const { device, secret } = await deps.create.execute(auth.actor, { name: body.name, shelfIds: body.shelf_ids });
        res.status(201).location(`/api/auth/kobo/${device.id}`).json({ ...presentDevice(device), url: `${deps.baseUrlOf(req)}/kobo/${secret}` });
      },
    }),
    route({
      method: 'get', path: '/api/auth/kobo', operationId: 'listKoboDevices', summary: "The caller's Kobo devices (never a sync URL)", tag, auth: true,
      query: KoboDeviceListQuery,
      responses: { 200: { description: 'A page of devices', schema: KoboDeviceListSchema } },
      errors: [403],
      async handle({ auth, query, res }) {
        res.json(presentPage(await deps.list.execute(auth.actor, { page: query.page, pageSize: query.page_size }), presentDevice));
      },
    }),
    route({
      method: 'delete', path: '/api/auth/kobo/{id}', operationId: 'deleteKoboDevice', summary: "Remove one of the caller's Kobo devices; its sync URL stops working at once", tag, auth: true,
      params: KoboDeviceParams,
      responses: { 204: { description: 'Removed' } },
      errors: [403, 404],
      async handle({ auth, params, res }) {
        await deps.revoke.execute(auth.actor, params.id);
        res.status(204).end();
      },
    }),
  ];
}
