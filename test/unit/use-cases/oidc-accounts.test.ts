import { beforeEach, describe, expect, it } from 'vitest';
import { InMemoryUserRepository } from '../../../src/adapters/memory/in-memory-user-repository.js';
import { MemoryDatabase } from '../../../src/adapters/memory/memory-database.js';
import { OidcAccounts, type OidcAccountSettings } from '../../../src/application/use-cases/oidc-accounts.js';
import type { RoleName } from '../../../src/domain/permissions.js';
import { aUser, FakeClock, SequentialIds, someClaims as claims, TEST_ISSUER as ISSUER } from '../../support/kit.js';

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
    expect(user.oidc).toEqual({ issuer: ISSUER, subject: 'sub-1' });
    expect(await users.findByOidcIdentity(ISSUER, 'sub-1')).toEqual(user);
  });

  it('stores an unverified e-mail only as a placeholder', async () => {
    const user = await accounts().resolve(claims({ email: 'nobody@example.test', username: 'nobody' }));
    expect(user.email).toBe('id000001@sso.invalid');
    expect(await users.findByEmail('nobody@example.test')).toBeNull();
  });

  it('links a local account by verified e-mail, keeping its password and name', async () => {
    const local = aUser({ username: 'erin', email: 'erin@example.test' });
    await users.create(local);
    const user = await accounts().resolve(claims({ email: 'erin@example.test', emailVerified: true, username: 'other' }));
    expect(user.id).toBe(local.id);
    expect(user).toMatchObject({ username: 'erin', passwordHash: local.passwordHash, authProvider: 'local', oidc: { issuer: ISSUER, subject: 'sub-1' } });
    expect((await users.findById(local.id))?.oidc).toEqual({ issuer: ISSUER, subject: 'sub-1' });
  });

  it('does not link by an unverified e-mail: a new account with a free username and a placeholder e-mail', async () => {
    const alice = aUser({ username: 'alice', email: 'alice@example.test' });
    await users.create(alice);
    const user = await accounts().resolve(claims({ email: 'alice@example.test', emailVerified: false, username: 'alice' }));
    expect(user.id).not.toBe(alice.id);
    expect(user.username).toBe('alice-2');
    expect(user.email).toMatch(/@sso\.invalid$/);
    expect(await users.findById(alice.id)).toEqual(alice);
  });

  it('does not take over an account already linked to another identity, even with a verified e-mail', async () => {
    const linked = aUser({ username: 'gil', email: 'gil@example.test', oidc: { issuer: ISSUER, subject: 'sub-gil' } });
    await users.create(linked);
    const user = await accounts().resolve(claims({ subject: 'sub-intruder', email: 'gil@example.test', emailVerified: true, username: 'gil' }));
    expect(user.id).not.toBe(linked.id);
    expect(user.email).toMatch(/@sso\.invalid$/);
    expect((await users.findById(linked.id))?.oidc?.subject).toBe('sub-gil');
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
    const local = aUser({ email: 'boss@example.test', roles: ['admin'] });
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
