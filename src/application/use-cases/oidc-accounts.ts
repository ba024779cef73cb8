import {
  accountDisabled, accountExists, emailTaken, hasCodeOf, oidcAccountAlreadyLinked, oidcCallbackInvalid, oidcIdentityTaken, usernameTaken,
} from '../../domain/error-catalogue.js';
import { ConflictError } from '../../domain/errors.js';
import { placeholderEmail, rolesFromClaim, usernameBase, usernameCandidate } from '../../domain/oidc-user.js';
import type { RoleName } from '../../domain/permissions.js';
import type { User } from '../../domain/user.js';
import type { Clock, IdGenerator, OidcIdentityClaims, UserRepository } from '../ports.js';
import type { LinkTarget } from './start-oidc-login.js';

export interface OidcAccountSettings {
  readonly defaultRole: RoleName;
  /** Set when OIDC_ROLES_CLAIM is: roles then follow the provider on every sign-in. */
  readonly roleMap: ReadonlyMap<string, RoleName> | null;
}

const MAX_USERNAME_ATTEMPTS = 20;

/**
 * Finds the account for a provider identity: by (issuer, subject); else a new SSO account when no
 * account has the provider's e-mail (stored only when verified, else a placeholder). An account with
 * that e-mail is linked only when the provider verified it and the account has neither a password nor
 * an identity (made for SSO by an admin); any other refuses the sign-in with `account_exists`, since
 * local sign-up does not verify e-mail. Linking into an account with a password goes through `link`.
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
    const holder = claims.email ? await this.users.findByEmail(claims.email) : null;
    if (!holder) return this.create(claims, claims.emailVerified ? claims.email : null);
    const madeForSso = holder.passwordHash === null && holder.oidc === null;
    const linked = claims.emailVerified && madeForSso ? await this.linkIfUnlinked(holder.id, claims) : null;
    if (!linked) throw accountExists();
    return this.withProviderRoles(linked, claims);
  }

  /**
   * Links the identity to the account that started the link flow; refused when another account holds it,
   * and when the account's token version moved since the link was asked for (a password change, reset,
   * disabling or another link meanwhile: the session that asked is over, so is its request).
   */
  async link(target: LinkTarget, claims: OidcIdentityClaims): Promise<User> {
    const { userId } = target;
    const known = await this.users.findByOidcIdentity(claims.issuer, claims.subject);
    if (known && known.id !== userId) throw oidcIdentityTaken();
    const user = known ?? (await this.users.findById(userId));
    if (!user) throw oidcCallbackInvalid();
    if (user.disabled) throw accountDisabled();
    if (user.tokenVersion !== target.tokenVersion) throw oidcCallbackInvalid();
    if (known) return this.withProviderRoles(known, claims);
    if (user.oidc !== null) throw oidcAccountAlreadyLinked();
    const linked = await this.linkIfUnlinked(userId, claims);
    if (!linked) throw oidcAccountAlreadyLinked();
    return this.withProviderRoles(linked, claims);
  }

  /** Links only an account without an identity; one that a concurrent sign-in just linked to this identity counts. */
  private async linkIfUnlinked(userId: string, claims: OidcIdentityClaims): Promise<User | null> {
    const linked = await this.users.linkOidcIdentity(userId, { issuer: claims.issuer, subject: claims.subject }, this.clock.now());
    if (linked) return linked;
    const current = await this.users.findById(userId);
    return current?.oidc?.issuer === claims.issuer && current.oidc.subject === claims.subject ? current : null;
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
      oidc: { issuer: claims.issuer, subject: claims.subject, linkedAt: now }, disabled: false, tokenVersion: 0, createdAt: now, updatedAt: now,
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
        else if (hasCodeOf(error, emailTaken)) throw accountExists();
        else throw error;
      }
    }
    throw usernameTaken(user.username);
  }
}
