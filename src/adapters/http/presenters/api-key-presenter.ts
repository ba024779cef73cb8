import type { ApiKey } from '../../../domain/api-key.js';
import type { ApiKeySchema, CreatedApiKeySchema } from '../schemas/api-keys.js';
import type { z } from '../zod.js';

/** A key as listed: never the secret (it is not stored) nor its lookup digest. */
export function presentApiKey(key: ApiKey) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    permissions: [...key.permissions],
    expires_at: key.expiresAt?.toISOString() ?? null,
    last_used_at: key.lastUsedAt?.toISOString() ?? null,
    created_at: key.createdAt.toISOString(),
  } satisfies z.infer<typeof ApiKeySchema>;
}

/** The key just made, with its secret: the only response that ever carries it. */
export function presentCreatedApiKey(created: { key: ApiKey; secret: string }) {
  return { ...presentApiKey(created.key), key: created.secret } satisfies z.infer<typeof CreatedApiKeySchema>;
}
