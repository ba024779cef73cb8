import { LOGIN_CODE_MAX_LENGTH } from '../../../domain/oidc-user.js';
import { RETURN_TO_MAX_LENGTH } from '../../../domain/return-to.js';
import { z } from '../zod.js';

const ReturnTo = z.string().max(RETURN_TO_MAX_LENGTH).optional().openapi({
  description: 'Where to send the browser afterwards: a relative path or a URL on an allowed origin; anything else is ignored',
  example: '/library',
});

export const OidcLoginQuery = z.object({ return_to: ReturnTo }).strict();

const CurrentPassword = z.string().min(1).max(1024);

export const OidcLinkBody = z
  .object({
    current_password: CurrentPassword.optional().openapi({ description: 'Required when the account has a password' }),
    return_to: ReturnTo,
  })
  .strict()
  .openapi('OidcLinkRequest');

export const OidcUnlinkBody = z.object({ current_password: CurrentPassword }).strict().openapi('OidcUnlinkRequest');

export const OidcLinkResponse = z
  .object({
    authorization_url: z.string().openapi({
      description: "The provider's authorization URL: navigate the browser there (top level) to sign in and link",
      example: 'https://sso.example.com/authorize?response_type=code&client_id=stacks&state=...',
    }),
  })
  .openapi('OidcLinkResponse');

/** Providers may add parameters of their own (`session_state`, ...); unknown ones are ignored. */
export const OidcCallbackQuery = z.object({
  code: z.string().max(4096).optional(),
  state: z.string().max(512).optional(),
  iss: z.string().max(2048).optional(),
  error: z.string().max(256).optional(),
  error_description: z.string().max(2048).optional(),
});

export const OidcCodeBody = z
  .object({ code: z.string().min(1).max(LOGIN_CODE_MAX_LENGTH).openapi({ description: 'The one-time code from the sign-in redirect' }) })
  .strict()
  .openapi('OidcCodeRequest');
