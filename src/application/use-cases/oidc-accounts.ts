import { emailTaken, hasCodeOf, oidcIdentityTaken, usernameTaken } from '../../domain/error-catalogue.js';
import { ConflictError } from '../../domain/errors.js';
import { placeholderEmail, rolesFromClaim, usernameBase, usernameCandidate } from '../../domain/oidc-user.js';
import type { RoleName } from '../../domain/permissions.js';
import type { User } from '../../domain/user.js';
import type { Clock, IdGenerator, OidcIdentityClaims, UserRepository } from '../ports.js';

export interface OidcAccountSettings {
  readonly defaultRole: RoleName;
  /** Set when OIDC_ROLES_CLAIM is: roles then follow the provider on every sign-in. */
  readonly roleMap: ReadonlyMap<string, RoleName> | null;
}

const MAX_USERNAME_ATTEMPTS = 20;

/**
 * Finds the account for a provider identity: by (issuer, subject); else the local account with the
 * same e-mail when the provider verified it and that account has no SSO identity yet (linked);
 * else a new SSO account. Only verified, unused addresses are stored; otherwise a placeholder.
 */
export class OidcAccounts {
  constructor(
    private readonly users: UserRepository,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly settings: OidcAccountSettings,
  ) {}

  async resolve(claims: OidcIdentityClaims): Promise<User> {
    const known = await this.users.findByOidcIdentity(claims.issuer, claims.subject);
    if (known) return this.withProviderRoles(known, claims);
    const verifiedEmail = claims.emailVerified ? claims.email : null;
    const local = verifiedEmail ? await this.users.findByEmail(verifiedEmail) : null;
    if (local && local.oidc === null) {
      const linked = { ...local, oidc: { issuer: claims.issuer, subject: claims.subject }, updatedAt: this.clock.now() };
      await this.users.update(linked);
      return this.withProviderRoles(linked, claims);
    }
    return this.create(claims, local ? null : verifiedEmail);
  }

  private async withProviderRoles(user: User, claims: OidcIdentityClaims): Promise<User> {
    if (!this.settings.roleMap) return user;
    const roles = rolesFromClaim(claims.roles, this.settings.roleMap, this.settings.defaultRole);
    if (roles.length === user.roles.length && roles.every((r) => user.roles.includes(r))) return user;
    return (await this.users.updateAccess(user.id, { roles }, this.clock.now())) ?? user;
  }

  private async create(claims: OidcIdentityClaims, email: string | null): Promise<User> {
    const now = this.clock.now();
    const id = this.ids.next();
    const base = usernameBase(claims.username, claims.email);
    const roles = this.settings.roleMap ? rolesFromClaim(claims.roles, this.settings.roleMap, this.settings.defaultRole) : [this.settings.defaultRole];
    let user: User = {
      id, username: base, email: email ?? placeholderEmail(id), passwordHash: null, roles, authProvider: 'oidc',
      oidc: { issuer: claims.issuer, subject: claims.subject }, disabled: false, tokenVersion: 0, createdAt: now, updatedAt: now,
    };
    let attempt = 0;
    while (attempt < MAX_USERNAME_ATTEMPTS) {
      user = { ...user, username: attempt < MAX_USERNAME_ATTEMPTS - 1 ? usernameCandidate(base, attempt) : `${base}-${id.slice(-6)}` };
      if (await this.users.findByUsername(user.username)) {
        attempt++;
        continue;
      }
      try {
        await this.users.create(user);
        return user;
      } catch (error) {
        if (!(error instanceof ConflictError)) throw error;
        if (hasCodeOf(error, oidcIdentityTaken)) {
          const winner = await this.users.findByOidcIdentity(claims.issuer, claims.subject);
          if (winner) return winner;
        }
        if (hasCodeOf(error, () => usernameTaken(user.username))) attempt++;
        else if (hasCodeOf(error, emailTaken) && user.email !== placeholderEmail(id)) user = { ...user, email: placeholderEmail(id) };
        else throw error;
      }
    }
    throw usernameTaken(user.username);
  }
}
