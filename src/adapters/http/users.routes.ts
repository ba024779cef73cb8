import type { ListRoles } from '../../application/use-cases/list-roles.js';
import type { DeleteUser } from '../../application/use-cases/delete-user.js';
import type { GetUser } from '../../application/use-cases/get-user.js';
import type { ListUsers } from '../../application/use-cases/list-users.js';
import type { UnlinkUserOidc } from '../../application/use-cases/unlink-user-oidc.js';
import type { UnlockUser } from '../../application/use-cases/unlock-user.js';
import type { UpdateUser } from '../../application/use-cases/update-user.js';
import type { RoleName } from '../../domain/permissions.js';
import { presentManagedUser } from './presenters/user-presenter.js';
import { route, type AnyRoute } from './route.js';
import { idParam, presentPage } from './schemas/common.js';
import { ManagedUserSchema, RoleListSchema, UpdateUserBody, UserListQuery, UserListSchema } from './schemas/identity.js';
import { z } from './zod.js';

export interface UserAdminDeps {
  readonly list: ListUsers;
  readonly get: GetUser;
  readonly update: UpdateUser;
  readonly remove: DeleteUser;
  readonly roles: ListRoles;
  readonly unlock: UnlockUser;
  readonly unlinkSso: UnlinkUserOidc;
}

const tag = 'Users and roles';
const UserParams = z.object({ id: idParam }).strict();

export function userRoutes(deps: UserAdminDeps): AnyRoute[] {
  return [
    route({
      operationId: 'listUsers',
      method: 'get', path: '/api/users', summary: 'List accounts (admin)', tag, auth: true, query: UserListQuery,
      responses: { 200: { description: 'A page of accounts', schema: UserListSchema } },
      errors: [403],
      async handle({ auth, query, res }) {
        const page = await deps.list.execute(auth.actor, { page: query.page, pageSize: query.page_size });
        res.json(presentPage(page, presentManagedUser));
      },
    }),
    route({
      operationId: 'getUser',
      method: 'get', path: '/api/users/{id}', summary: 'Read an account (admin)', tag, auth: true, params: UserParams,
      responses: { 200: { description: 'The account', schema: ManagedUserSchema } },
      errors: [403, 404],
      async handle({ auth, params, res }) {
        res.json(presentManagedUser(await deps.get.execute(auth.actor, params.id)));
      },
    }),
    route({
      operationId: 'updateUser',
      method: 'patch', path: '/api/users/{id}', summary: 'Change roles or disable an account (admin)', tag, auth: true,
      params: UserParams, body: UpdateUserBody,
      responses: { 200: { description: 'The updated account', schema: ManagedUserSchema } },
      errors: [403, 404, 409],
      async handle({ auth, params, body, res }) {
        const user = await deps.update.execute(auth.actor, {
          id: params.id,
          ...(body.roles ? { roles: body.roles as RoleName[] } : {}),
          ...(body.disabled !== undefined ? { disabled: body.disabled } : {}),
        });
        res.json(presentManagedUser(user));
      },
    }),
    route({
      operationId: 'deleteUser',
      method: 'delete', path: '/api/users/{id}', summary: 'Delete an account (admin)', tag, auth: true, params: UserParams,
      responses: { 204: { description: 'Deleted' } },
      errors: [403, 404, 409],
      async handle({ auth, params, res }) {
        await deps.remove.execute(auth.actor, params.id);
        res.status(204).end();
      },
    }),
    route({
      method: 'delete', path: '/api/users/{id}/lock', operationId: 'unlockUser', summary: 'Lift every sign-in block of an account (admin)', tag, auth: true,
      params: UserParams,
      responses: { 204: { description: 'Unlocked: the account, its addresses and its current-password guesses start afresh' } },
      errors: [403, 404],
      async handle({ auth, params, res }) {
        await deps.unlock.execute(auth.actor, params.id);
        res.status(204).end();
      },
    }),
    route({
      method: 'delete', path: '/api/users/{id}/sso', operationId: 'unlinkUserSso', summary: "Unlink an account's single sign-on identity (admin); ends its sessions", tag, auth: true,
      params: UserParams,
      responses: { 204: { description: 'Unlinked (or nothing was linked); every session of the account ends' } },
      errors: [403, 404],
      async handle({ auth, params, res }) {
        await deps.unlinkSso.execute(auth.actor, params.id);
        res.status(204).end();
      },
    }),
    route({
      operationId: 'listRoles',
      method: 'get', path: '/api/roles', summary: 'List roles and their permissions (admin)', tag, auth: true,
      responses: { 200: { description: 'The built-in roles', schema: RoleListSchema } },
      errors: [403],
      handle({ auth, res }) {
        res.json({ items: deps.roles.execute(auth.actor) });
      },
    }),
  ];
}
