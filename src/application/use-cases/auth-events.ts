import { usernameKey } from '../../domain/user.js';
import type { ActivityLog, SecretGenerator } from '../ports.js';

/** Which secret was checked. */
export type AuthMethod = 'password' | 'opds_password' | 'api_key' | 'opds_key' | 'koreader_key' | 'kobo_url' | 'current_password' | 'sso';

/** Whose secret it was: the account when one is known, else what was typed as the login (kept only as a keyed tag). */
export type AuthSubject = { readonly userId: string } | { readonly login: string } | null;

/**
 * One `auth` log line for every check of a secret (API.md log hygiene): `auth_succeeded` or
 * `auth_failed`, the method, the client address, the account's id, or, when no account matched, a
 * keyed tag of the typed login (`login_tag`), never the login itself (a password typed into the login
 * field must not land in the log), and never a secret.
 */
export class AuthEvents {
  constructor(
    private readonly log: ActivityLog,
    private readonly secrets: SecretGenerator,
  ) {}

  succeeded(method: AuthMethod, userId: string, clientAddress: string): void {
    this.log.info({ event: 'auth_succeeded', method, user_id: userId, address: clientAddress }, 'auth');
  }

  failed(method: AuthMethod, subject: AuthSubject, clientAddress: string, error: unknown): void {
    const who = subject === null ? {} : 'userId' in subject ? { user_id: subject.userId } : { login_tag: this.secrets.tag(usernameKey(subject.login.trim())) };
    this.log.info({ event: 'auth_failed', method, ...who, address: clientAddress, code: (error as { code?: unknown } | null)?.code }, 'auth');
  }
}
