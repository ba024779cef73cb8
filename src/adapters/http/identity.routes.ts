import type { ChangePassword } from '../../application/use-cases/change-password.js';
import type { LoginUser } from '../../application/use-cases/login-user.js';
import type { Logout } from '../../application/use-cases/logout.js';
import type { RegisterUser } from '../../application/use-cases/register-user.js';
import type { Logger } from 'pino';
import { permissionDenied } from '../../domain/error-catalogue.js';
import { presentToken, presentUser } from './presenters/user-presenter.js';
import { route, type AnyRoute } from './route.js';
import { AuthConfigSchema, ChangePasswordBody, LoginBody, RegisterBody, TokenResponseSchema, UserSchema } from './schemas/identity.js';

export interface IdentityDeps {
  readonly register: RegisterUser;
  readonly login: LoginUser;
  readonly logout: Logout;
  readonly changePassword: ChangePassword;
  readonly authConfig: { registration_enabled: boolean; local_login_enabled: boolean; oidc_enabled: boolean };
  readonly logger: Logger;
}

const tag = 'Authentication';

export function identityRoutes(deps: IdentityDeps): AnyRoute[] {
  return [
    route({
      operationId: 'register',
      method: 'post', path: '/api/auth/register', summary: 'Register a new account', tag, auth: false, checksSecret: true, body: RegisterBody,
      responses: { 201: { description: 'Registered and signed in', schema: TokenResponseSchema } },
      errors: [403, 409],
      async handle({ body, res }) {
        const result = await deps.register.execute(body);
        deps.logger.info({ event: 'user_registered', user_id: result.user.id }, 'auth');
        res.status(201).json(presentToken(result));
      },
    }),
    route({
      operationId: 'login',
      method: 'post', path: '/api/auth/login', summary: 'Log in with username or e-mail and password', tag, auth: false, checksSecret: true, body: LoginBody,
      responses: { 200: { description: 'Signed in', schema: TokenResponseSchema } },
      errors: [401, 403, 429],
      async handle({ body, req, res }) {
        // LoginUser writes the auth event, success or failure (never the login as typed).
        res.json(presentToken(await deps.login.execute({ login: body.username, password: body.password, clientAddress: req.ip ?? 'unknown' })));
      },
    }),
    route({
      operationId: 'getCurrentUser',
      method: 'get', path: '/api/auth/me', summary: 'The signed-in user', tag, auth: true,
      responses: { 200: { description: 'The user', schema: UserSchema } },
      async handle({ auth, res }) {
        // Authenticate has just read this user from the store for this request (no second read).
        res.json(presentUser(auth.user));
      },
    }),
    route({
      operationId: 'logout',
      method: 'post', path: '/api/auth/logout', summary: 'Revoke the token used for this request', tag, auth: true,
      responses: { 204: { description: 'Logged out' } },
      errors: [403],
      async handle({ auth, res }) {
        if (!auth.claims) throw permissionDenied(); // a personal API key is revoked with DELETE /api/auth/keys/{id}
        await deps.logout.execute(auth.claims);
        res.status(204).end();
      },
    }),
    route({
      operationId: 'changePassword',
      method: 'put', path: '/api/auth/password', summary: 'Change the password; revokes every older token', tag, auth: true, checksSecret: true,
      body: ChangePasswordBody,
      responses: { 204: { description: 'Password changed' } },
      errors: [403],
      async handle({ auth, body, req, res }) {
        await deps.changePassword.execute(auth.actor, { currentPassword: body.current_password, newPassword: body.new_password, clientAddress: req.ip ?? 'unknown' });
        deps.logger.info({ event: 'password_changed', user_id: auth.actor.id }, 'auth');
        res.status(204).end();
      },
    }),
    route({
      operationId: 'getAuthConfig',
      method: 'get', path: '/api/auth/config', summary: 'Which sign-in methods are on', tag, auth: false,
      responses: { 200: { description: 'Sign-in configuration', schema: AuthConfigSchema } },
      handle({ res }) {
        res.json(deps.authConfig);
      },
    }),
  ];
}
