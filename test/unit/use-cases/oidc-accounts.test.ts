import { beforeEach, describe, expect, it } from 'vitest';
import { InMemoryUserRepository } from '../../../src/adapters/memory/in-memory-user-repository.js';
import { MemoryDatabase } from '../../../src/adapters/memory/memory-database.js';
import { OidcAccounts, type OidcAccountSettings } from '../../../src/application/use-cases/oidc-accounts.js';
import type { RoleName } from '../../../src/domain/permissions.js';
import type { User } from '../../../src/domain/user.js';
import { aUser, errorOf, FakeClock, SequentialIds, someClaims as claims, TEST_ISSUER as ISSUER, TEST_NOW } from '../../support/kit.js';

let db: MemoryDatabase;
let users: InMemoryUserRepository;
let ids: SequentialIds;
const accounts = (settings: Partial<OidcAccountSettings> = {}) =>
  new OidcAccounts(users, new FakeClock(), ids, { defaultRole: 'user', roleMap: null, ...settings });

beforeEach(() => {
  db = new MemoryDatabase();
  users = new InMemoryUserRepository(db);
  ids = new SequentialIds('ID', 6);
});

describe('OidcAccounts', () => {
  it('creates an SSO account without a password, with the verified e-mail and the default role', async () => {
    const user = await accounts().resolve(claims({ email: 'carol@example.test', emailVerified: true, username: 'carol' }));
    expect(user).toMatchObject({ username: 'carol', email: 'carol@example.test', passwordHash: null, authProvider: 'oidc', roles: ['user'] });
    expect(user.oidc).toEqual({ issuer: ISSUER, subject: 'sub-1', linkedAt: TEST_NOW });
    expect(await users.findByOidcIdentity(ISSUER, 'sub-1')).toEqual(user);
  });

  it('stores an unverified e-mail only as a placeholder', async () => {
    const user = await accounts().resolve(claims({ email: 'nobody@example.test', username: 'nobody' }));
    expect(user.email).toBe('id000001@sso.invalid');
    expect(await users.findByEmail('nobody@example.test')).toBeNull();
  });

  it('refuses to link an account that has a password, even by a verified e-mail: account_exists, nothing created or changed', async () => {
    const squatter = aUser({ username: 'squatter', email: 'victim@example.test' });
    await users.create(squatter);
    const error = await errorOf(accounts().resolve(claims({ email: 'victim@example.test', emailVerified: true, username: 'victim' })));
    expect(error).toMatchObject({ kind: 'conflict', code: 'account_exists' });
    expect(await users.findById(squatter.id)).toEqual(squatter);
    expect(await users.findByOidcIdentity(ISSUER, 'sub-1')).toBeNull();
    expect(await users.count()).toBe(1);
  });

  it('links an account made for SSO (no password, no identity) when the provider verified its e-mail', async () => {
    const made = aUser({ username: 'erin', email: 'erin@example.test', passwordHash: null, roles: ['reader'] });
    await users.create(made);
    const user = await accounts().resolve(claims({ email: 'erin@example.test', emailVerified: true, username: 'other' }));
    expect(user).toEqual({ ...made, oidc: { issuer: ISSUER, subject: 'sub-1', linkedAt: TEST_NOW }, tokenVersion: made.tokenVersion + 1, updatedAt: TEST_NOW });
    expect(await users.findById(made.id)).toEqual(user);
    expect(await users.count()).toBe(1);
  });

  it('signs two simultaneous first sign-ins of one identity into the one account made for SSO', async () => {
    const made = aUser({ email: 'pat@example.test', passwordHash: null });
    await users.create(made);
    const sso = claims({ email: 'pat@example.test', emailVerified: true });
    const [a, b] = await Promise.all([accounts().resolve(sso), accounts().resolve(sso)]);
    expect([a.id, b.id]).toEqual([made.id, made.id]);
    expect(await users.count()).toBe(1);
  });

  const refused: Array<[string, Partial<User>, boolean]> = [
    ['an unverified e-mail, account with a password', {}, false],
    ['an unverified e-mail, account made for SSO', { passwordHash: null }, false],
    ['a verified e-mail, account already linked to another identity', { passwordHash: null, oidc: { issuer: ISSUER, subject: 'sub-gil', linkedAt: new Date(0) } }, true],
    ['a verified e-mail, account of another issuer', { oidc: { issuer: 'https://other.example', subject: 'sub-1', linkedAt: new Date(0) } }, true],
  ];
  it.each(refused)('refuses %s with account_exists, changing nothing', async (_label, overrides, emailVerified) => {
    const holder = aUser({ username: 'gil', email: 'gil@example.test', ...overrides });
    await users.create(holder);
    const error = await errorOf(accounts().resolve(claims({ email: 'GIL@example.test', emailVerified, username: 'gil' })));
    expect(error).toMatchObject({ kind: 'conflict', code: 'account_exists' });
    expect(await users.findById(holder.id)).toEqual(holder);
    expect(await users.count()).toBe(1);
  });

  it('finds the same account by (issuer, subject) whatever the e-mail says later', async () => {
    const first = await accounts().resolve(claims({ email: 'h@example.test', emailVerified: true, username: 'hal' }));
    const again = await accounts().resolve(claims({ email: 'changed@example.test', emailVerified: true, username: 'someone' }));
    expect(again.id).toBe(first.id);
    const otherIssuer = await accounts().resolve(claims({ issuer: 'https://other.example', username: 'hal' }));
    expect(otherIssuer.id).not.toBe(first.id);
  });

  it('maps roles when a claim is configured and re-applies them on each sign-in', async () => {
    await users.create(aUser({ roles: ['admin'] }));
    const roleMap = new Map<string, RoleName>([['admins', 'admin'], ['readers', 'reader']]);
    const created = await accounts({ roleMap }).resolve(claims({ roles: ['admins'] }));
    expect(created.roles).toEqual(['admin']);
    const later = await accounts({ roleMap }).resolve(claims({ roles: ['nothing-mapped'] }));
    expect(later.roles).toEqual(['user']);
    expect((await users.findById(created.id))?.roles).toEqual(['user']);
  });

  it('refuses a sign-in whose provider roles would demote the last active admin (last_admin), leaving it an admin', async () => {
    const roleMap = new Map<string, RoleName>([['admins', 'admin']]);
    const created = await accounts({ roleMap }).resolve(claims({ roles: ['admins'] }));
    await expect(accounts({ roleMap }).resolve(claims({ roles: [] }))).rejects.toMatchObject({ code: 'last_admin' });
    expect((await users.findById(created.id))?.roles).toEqual(['admin']);
  });

  it('keeps a disable that lands between reading the account and applying the provider roles', async () => {
    const roleMap = new Map<string, RoleName>([['readers', 'reader']]);
    const created = await accounts({ roleMap }).resolve(claims({ roles: [] }));
    let found = (): void => undefined;
    let proceed = (): void => undefined;
    const reached = new Promise<void>((resolve) => (found = resolve));
    const paused = new Promise<void>((resolve) => (proceed = resolve));
    const direct = users;
    users = new (class extends InMemoryUserRepository {
      override async findByOidcIdentity(issuer: string, subject: string) {
        const user = await super.findByOidcIdentity(issuer, subject);
        found();
        await paused;
        return user;
      }
    })(db);
    const signIn = accounts({ roleMap }).resolve(claims({ roles: ['readers'] }));
    await reached;
    await direct.updateAccess(created.id, { disabled: true }, new Date(0));
    proceed();
    expect(await signIn).toMatchObject({ roles: ['reader'], disabled: true, tokenVersion: 1 });
    expect(await direct.findById(created.id)).toMatchObject({ roles: ['reader'], disabled: true, tokenVersion: 1 });
  });

  it('leaves roles alone when no roles claim is configured', async () => {
    const local = aUser({ email: 'boss@example.test', roles: ['admin'], passwordHash: null });
    await users.create(local);
    const user = await accounts().resolve(claims({ email: 'boss@example.test', emailVerified: true, roles: ['admins'] }));
    expect(user.roles).toEqual(['admin']);
  });

  it('finds a free username when many are taken', async () => {
    for (const name of ['sam', 'sam-2', 'sam-3']) await users.create(aUser({ username: name }));
    const user = await accounts().resolve(claims({ username: 'SAM' }));
    expect(user.username).toBe('SAM-4');
  });
});

describe('OidcAccounts.link (the link flow from a signed-in session)', () => {
  const target = (user: User) => ({ userId: user.id, tokenVersion: user.tokenVersion });

  it('links nothing once the account\'s token version moved since the link was asked for (its sessions were revoked)', async () => {
    const erin = aUser({ username: 'erin', email: 'erin@example.test', tokenVersion: 3 });
    await users.create(erin);
    expect(await errorOf(accounts().link({ userId: erin.id, tokenVersion: 2 }, claims()))).toMatchObject({ code: 'oidc_callback_invalid' });
    expect(await users.findById(erin.id)).toEqual(erin);
  });

  it('links the identity to the account, keeping its password; the next sign-in of that identity lands there', async () => {
    const erin = aUser({ username: 'erin', email: 'erin@example.test' });
    await users.create(erin);
    const sso = claims({ subject: 'sub-erin', email: 'erin.work@example.test', emailVerified: true });
    const linked = await accounts().link(target(erin), sso);
    expect(linked).toEqual({ ...erin, oidc: { issuer: ISSUER, subject: 'sub-erin', linkedAt: TEST_NOW }, tokenVersion: erin.tokenVersion + 1, updatedAt: TEST_NOW });
    expect((await accounts().resolve(sso)).id).toBe(erin.id);
    expect(await accounts().link(target(linked), sso)).toEqual(linked);
    expect(await users.count()).toBe(1);
  });

  it('refuses an identity that belongs to another account: oidc_identity_already_linked, both unchanged', async () => {
    const holder = aUser({ oidc: { issuer: ISSUER, subject: 'sub-1', linkedAt: TEST_NOW } });
    const other = aUser();
    await users.create(holder);
    await users.create(other);
    expect(await errorOf(accounts().link(target(other), claims()))).toMatchObject({ kind: 'conflict', code: 'oidc_identity_already_linked' });
    expect(await users.findById(holder.id)).toEqual(holder);
    expect(await users.findById(other.id)).toEqual(other);
  });

  it('refuses an account that has another identity already, a disabled account and a deleted one', async () => {
    const linked = aUser({ oidc: { issuer: ISSUER, subject: 'sub-own', linkedAt: TEST_NOW } });
    const disabled = aUser({ disabled: true });
    for (const u of [linked, disabled]) await users.create(u);
    expect(await errorOf(accounts().link(target(linked), claims()))).toMatchObject({ kind: 'conflict', code: 'oidc_account_already_linked' });
    expect(await errorOf(accounts().link(target(disabled), claims()))).toMatchObject({ kind: 'forbidden', code: 'account_disabled' });
    expect(await errorOf(accounts().link({ userId: 'gone', tokenVersion: 0 }, claims()))).toMatchObject({ kind: 'bad_request', code: 'oidc_callback_invalid' });
    expect(await users.findById(linked.id)).toEqual(linked);
    expect(await users.findById(disabled.id)).toEqual(disabled);
    expect(await users.findByOidcIdentity(ISSUER, 'sub-1')).toBeNull();
  });
});
