import { API_KEY_NAME_MAX_LENGTH } from '../../../domain/api-key.js';
import { PERMISSIONS } from '../../../domain/permissions.js';
import { z } from '../zod.js';
import { idParam, listOf, pageQuery, timestamp } from './common.js';
import { nameText } from './text.js';

const permission = z.enum(PERMISSIONS);

export const CreateApiKeyBody = z
  .object({
    name: nameText(API_KEY_NAME_MAX_LENGTH * 2).trim().min(1).max(API_KEY_NAME_MAX_LENGTH).openapi({ example: 'KOReader on the Kobo' }),
    permissions: z.array(permission).max(PERMISSIONS.length).optional()
      .openapi({ description: "The most the key may do; default: every permission the owner holds. Always limited to the owner's current permissions." }),
    expires_at: z.iso.datetime({ offset: true }).optional().nullable()
      .openapi({ description: 'Optional expiry, any time in the future; absent or null: no expiry.' }),
  })
  .strict()
  .openapi('CreateApiKey');

const apiKeyFields = {
  id: z.string(),
  name: z.string(),
  prefix: z.string().openapi({ description: 'The first characters after `stk_`, to tell keys apart.' }),
  permissions: z.array(permission),
  expires_at: timestamp.nullable(),
  last_used_at: timestamp.nullable().openapi({ description: 'Updated at most once a minute.' }),
  created_at: timestamp,
};

export const ApiKeySchema = z.object(apiKeyFields).openapi('ApiKey');
export const CreatedApiKeySchema = z
  .object({ ...apiKeyFields, key: z.string().openapi({ description: 'The secret `stk_…`, shown only in this response.' }) })
  .openapi('CreatedApiKey');
export const ApiKeyListSchema = listOf(ApiKeySchema, 'ApiKeyList');
export const ApiKeyListQuery = z.object(pageQuery).strict();
export const ApiKeyParams = z.object({ id: idParam }).strict();
export const UserApiKeyParams = z.object({ id: idParam, key_id: idParam }).strict();
