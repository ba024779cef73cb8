import { KOBO_DEVICE_NAME_MAX, KOBO_DEVICE_SHELVES_MAX } from '../../../domain/kobo-device.js';
import { isCleanName, NAME_CONTROL_MESSAGE } from '../../../domain/text.js';
import { z } from '../zod.js';
import { idParam, listOf, pageQuery, timestamp } from './common.js';

export const CreateKoboDeviceBody = z
  .object({
    name: z.string().trim().min(1).max(KOBO_DEVICE_NAME_MAX)
      .refine(isCleanName, NAME_CONTROL_MESSAGE).openapi({ example: 'Kobo Libra Colour' }),
    shelf_ids: z.array(idParam).max(KOBO_DEVICE_SHELVES_MAX).optional()
      .openapi({ description: 'Sync only the books on these shelves (yours or public ones); absent or empty: every book you may read.' }),
  })
  .strict()
  .openapi('CreateKoboDevice');

const deviceFields = {
  id: z.string(),
  name: z.string(),
  shelf_ids: z.array(z.string()),
  last_used_at: timestamp.nullable().openapi({ description: 'Updated at most once a minute.' }),
  created_at: timestamp,
};

export const KoboDeviceSchema = z.object(deviceFields).openapi('KoboDevice');
export const CreatedKoboDeviceSchema = z
  .object({ ...deviceFields, url: z.string().openapi({ description: 'The sync URL `{PUBLIC_URL}/kobo/{secret}`, shown only in this response.' }) })
  .openapi('CreatedKoboDevice');
export const KoboDeviceListSchema = listOf(KoboDeviceSchema, 'KoboDeviceList');
export const KoboDeviceListQuery = z.object(pageQuery).strict();
export const KoboDeviceParams = z.object({ id: idParam }).strict();
