import { ROLE_NAMES, PERMISSIONS } from '../../../domain/permissions.js';
import {
  EMAIL_MAX_LENGTH,
  PASSWORD_MAX_BYTES,
  PASSWORD_MIN_LENGTH,
  USERNAME_MAX_LENGTH,
  USERNAME_MIN_LENGTH,
  USERNAME_PATTERN,
} from '../../../domain/user.js';
import { z } from '../zod.js';
import { listOf, pageQuery, timestamp } from './common.js';
import { nameText } from './text.js';

/** Characters read of a password field at most; the byte rule (PASSWORD_MAX_BYTES) is checked after. */
const PASSWORD_FIELD_MAX = 1024;

export const UserSchema = z
  .object({
    id: z.string(),
    username: z.string(),
    email: z.string(),
    roles: z.array(z.enum(ROLE_NAMES as [string, ...string[]])),
    permissions: z.array(z.enum(PERMISSIONS)),
    auth_provider: z.enum(['local', 'oidc']),
    sso: z
      .object({ issuer: z.string(), linked_at: timestamp })
      .strict()
      .nullable()
      .openapi({ description: 'The single sign-on identity linked to the account (its provider and since when); null when none' }),
    created_at: timestamp,
  })
  .strict()
  .openapi('User');

export const ManagedUserSchema = UserSchema.extend({
  disabled: z.boolean(),
  locked_until: timestamp.nullable().openapi({ description: 'When the sign-in block of the account ends; null when it is not blocked' }),
}).strict().openapi('ManagedUser');

export const TokenResponseSchema = z
  .object({
    access_token: z.string(),
    token_type: z.literal('bearer'),
    expires_in: z.number().int().openapi({ description: 'Seconds until the token expires' }),
    user: UserSchema,
  })
  .strict()
  .openapi('TokenResponse');

export const RegisterBody = z
  .object({
    username: z
      .string()
      .regex(USERNAME_PATTERN, `must be ${USERNAME_MIN_LENGTH}-${USERNAME_MAX_LENGTH} letters, digits, dots, underscores or hyphens`)
      .openapi({ example: 'alice' }),
    email: z.email().max(EMAIL_MAX_LENGTH).openapi({ example: 'alice@example.com' }),
    password: z
      .string()
      .min(PASSWORD_MIN_LENGTH)
      .max(PASSWORD_FIELD_MAX)
      .openapi({ description: `At least ${PASSWORD_MIN_LENGTH} characters and at most ${PASSWORD_MAX_BYTES} UTF-8 bytes` }),
  })
  .strict()
  .openapi('RegisterRequest');

export const LoginBody = z
  .object({
    username: nameText(EMAIL_MAX_LENGTH).min(1).openapi({ description: 'Username or e-mail address' }),
    password: z.string().min(1).max(PASSWORD_FIELD_MAX),
  })
  .strict()
  .openapi('LoginRequest');

export const ChangePasswordBody = z
  .object({ current_password: z.string().min(1).max(PASSWORD_FIELD_MAX), new_password: z.string().min(PASSWORD_MIN_LENGTH).max(PASSWORD_FIELD_MAX) })
  .strict()
  .openapi('ChangePasswordRequest');

export const AuthConfigSchema = z
  .object({ registration_enabled: z.boolean(), local_login_enabled: z.boolean(), oidc_enabled: z.boolean() })
  .strict()
  .openapi('AuthConfig');

export const UserListSchema = listOf(ManagedUserSchema, 'UserList');
export const UserListQuery = z.object(pageQuery).strict();

export const UpdateUserBody = z
  .object({
    roles: z.array(z.enum(ROLE_NAMES as [string, ...string[]])).min(1).max(ROLE_NAMES.length).optional(),
    disabled: z.boolean().optional(),
  })
  .strict()
  .refine((b) => b.roles !== undefined || b.disabled !== undefined, 'give roles or disabled')
  .openapi('UpdateUserRequest');

export const RoleSchema = z
  .object({ name: z.enum(ROLE_NAMES as [string, ...string[]]), permissions: z.array(z.enum(PERMISSIONS)) })
  .strict()
  .openapi('Role');
export const RoleListSchema = z.object({ items: z.array(RoleSchema) }).strict().openapi('RoleList');
