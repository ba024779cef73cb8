import type { CreateApiKey } from '../../application/use-cases/create-api-key.js';
import type { ListApiKeys } from '../../application/use-cases/list-api-keys.js';
import type { RevokeApiKey } from '../../application/use-cases/revoke-api-key.js';
import type { Permission } from '../../domain/permissions.js';
import { presentApiKey, presentCreatedApiKey } from './presenters/api-key-presenter.js';
import { route, type AnyRoute } from './route.js';
import {
  ApiKeyListQuery, ApiKeyListSchema, ApiKeyParams, CreateApiKeyBody, CreatedApiKeySchema, UserApiKeyParams,
} from './schemas/api-keys.js';
import { presentPage } from './schemas/common.js';

export interface ApiKeyDeps {
  readonly create: CreateApiKey;
  readonly list: ListApiKeys;
  readonly revoke: RevokeApiKey;
}

const tag = 'Personal API keys';

/** The caller's own keys under /api/auth/keys, and any user's under /api/users/{id}/keys (admin). */
export function apiKeyRoutes(deps: ApiKeyDeps): AnyRoute[] {
  return [
    route({
      operationId: 'createApiKey',
      method: 'post', path: '/api/auth/keys', summary: 'Create a personal API key (the secret is shown once)', tag, auth: true,
      body: CreateApiKeyBody,
      responses: { 201: { description: 'The key, with its secret `key`', schema: CreatedApiKeySchema } },
      errors: [403],
      async handle({ auth, body, res }) {
        const created = await deps.create.execute(auth.actor, {
          ownerId: auth.actor.id, name: body.name, permissions: body.permissions as Permission[] | undefined,
          expiresAt: body.expires_at ? new Date(body.expires_at) : null,
        });
        res.status(201).location(`/api/auth/keys/${created.key.id}`).json(presentCreatedApiKey(created));
      },
    }),
    route({
      operationId: 'listApiKeys',
      method: 'get', path: '/api/auth/keys', summary: "The caller's personal API keys (never a secret)", tag, auth: true,
      query: ApiKeyListQuery,
      responses: { 200: { description: 'A page of keys', schema: ApiKeyListSchema } },
      async handle({ auth, query, res }) {
        const page = await deps.list.execute(auth.actor, { ownerId: auth.actor.id, page: { page: query.page, pageSize: query.page_size } });
        res.json(presentPage(page, presentApiKey));
      },
    }),
    route({
      operationId: 'revokeApiKey',
      method: 'delete', path: '/api/auth/keys/{id}', summary: 'Revoke one of the caller\'s keys; it stops working at once', tag, auth: true,
      params: ApiKeyParams,
      responses: { 204: { description: 'Revoked' } },
      errors: [404],
      async handle({ auth, params, res }) {
        await deps.revoke.execute(auth.actor, { ownerId: auth.actor.id, keyId: params.id });
        res.status(204).end();
      },
    }),
    route({
      operationId: 'listUserApiKeys',
      method: 'get', path: '/api/users/{id}/keys', summary: "A user's personal API keys (admin)", tag, auth: true,
      params: ApiKeyParams, query: ApiKeyListQuery,
      responses: { 200: { description: 'A page of keys', schema: ApiKeyListSchema } },
      errors: [403, 404],
      async handle({ auth, params, query, res }) {
        const page = await deps.list.execute(auth.actor, { ownerId: params.id, page: { page: query.page, pageSize: query.page_size } });
        res.json(presentPage(page, presentApiKey));
      },
    }),
    route({
      operationId: 'revokeUserApiKey',
      method: 'delete', path: '/api/users/{id}/keys/{key_id}', summary: "Revoke a user's personal API key (admin)", tag, auth: true,
      params: UserApiKeyParams,
      responses: { 204: { description: 'Revoked' } },
      errors: [403, 404],
      async handle({ auth, params, res }) {
        await deps.revoke.execute(auth.actor, { ownerId: params.id, keyId: params.key_id });
        res.status(204).end();
      },
    }),
  ];
}
