import { describe, expect, it } from 'vitest';
import { aWorld, DEFAULT_WORLD_SETTINGS, errorOf } from '../../support/kit.js';

const input = { username: 'hank', email: 'Hank@Example.test', password: 'correct horse battery' };
const withRegistration = (changes: Partial<typeof DEFAULT_WORLD_SETTINGS.registration>) =>
  aWorld({ registration: { ...DEFAULT_WORLD_SETTINGS.registration, ...changes } });

describe('RegisterUser', () => {
  it('creates a local account with the default role and signs it in', async () => {
    const w = withRegistration({ defaultRole: 'reader' });
    const { user, token } = await w.registerUser.execute(input);
    expect(user).toMatchObject({ id: 'id-1', username: 'hank', email: 'hank@example.test', roles: ['reader'], authProvider: 'local', createdAt: w.clock.now() });
    expect(await w.store.users.findById('id-1')).toEqual(user);
    expect(await w.hasher.verify(input.password, user.passwordHash)).toBe(true);
    expect((await w.authenticate.execute(token.token)).user.id).toBe('id-1');
  });

  it('makes the very first account admin when told to, and only the first', async () => {
    const w = withRegistration({ firstUserBecomesAdmin: true });
    expect((await w.registerUser.execute(input)).user.roles).toEqual(['admin']);
    expect((await w.registerUser.execute({ ...input, username: 'ivy', email: 'ivy@example.test' })).user.roles).toEqual(['user']);
  });

  it('keeps exactly one admin when two "first" registrations run at once: the store decides, so the later one is stored as a user', async () => {
    const w = withRegistration({ firstUserBecomesAdmin: true });
    const [first, second] = await Promise.all([
      w.registerUser.execute(input),
      w.registerUser.execute({ ...input, username: 'ivy', email: 'ivy@example.test' }),
    ]);
    expect([first.user.roles, second.user.roles]).toEqual([['admin'], ['user']]);
    expect((await w.store.users.findById(second.user.id))?.roles).toEqual(['user']);
    expect((await w.store.users.findById(first.user.id))?.roles).toEqual(['admin']);
  });

  it('is registration_closed or local_login_disabled when the settings say so, and stores nothing', async () => {
    const closed = withRegistration({ registrationOpen: false });
    expect(await errorOf(closed.registerUser.execute(input))).toMatchObject({ kind: 'forbidden', code: 'registration_closed' });
    const ssoOnly = withRegistration({ localLogin: false });
    expect(await errorOf(ssoOnly.registerUser.execute(input))).toMatchObject({ kind: 'forbidden', code: 'local_login_disabled' });
    expect(await closed.store.users.count()).toBe(0);
    expect(await ssoOnly.store.users.count()).toBe(0);
  });

  it('applies the password rules and the unique username', async () => {
    const w = aWorld();
    expect(await errorOf(w.registerUser.execute({ ...input, password: 'short' }))).toMatchObject({ kind: 'validation', code: 'validation_failed' });
    await w.registerUser.execute(input);
    const taken = await errorOf(w.registerUser.execute({ ...input, username: 'HANK', email: 'other@example.test' }));
    expect(taken).toMatchObject({ kind: 'conflict', code: 'username_already_exists' });
    expect(await w.store.users.count()).toBe(1);
  });
});
