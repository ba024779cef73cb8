import { beforeEach, describe, expect, it } from 'vitest';
import { aWorld, errorOf, type World } from '../../support/kit.js';
import { GatedPasswordHasher } from '../../support/gated-password-hasher.js';

let w: World;
beforeEach(() => {
  w = aWorld();
});

const account = { username: 'Keeper', password: 'correct horse battery' };

describe('BootstrapAdmin', () => {
  it('creates the configured admin with a hashed password and a localhost e-mail by default', async () => {
    const created = await w.bootstrapAdmin.execute(account);
    expect(created).toMatchObject({
      id: 'id-1', username: 'Keeper', email: 'keeper@localhost', roles: ['admin'], authProvider: 'local',
      disabled: false, tokenVersion: 0, createdAt: w.clock.now(), updatedAt: w.clock.now(),
    });
    const stored = await w.store.users.findById('id-1');
    expect(stored).toEqual(created);
    expect(stored?.passwordHash).not.toBe(account.password);
    expect(await w.hasher.verify(account.password, stored?.passwordHash ?? null)).toBe(true);
  });

  it('keeps the given e-mail, lower-cased', async () => {
    expect((await w.bootstrapAdmin.execute({ ...account, email: 'Keeper@Example.TEST' }))?.email).toBe('keeper@example.test');
  });

  it('does nothing when an account of that name exists, whatever its case and even with a bad password', async () => {
    const { user: existing } = await w.storeUser({ username: 'keeper', roles: ['user'] });
    expect(await w.bootstrapAdmin.execute({ username: 'KEEPER', password: 'short' })).toBeNull();
    expect(await w.store.users.count()).toBe(1);
    expect(await w.store.users.findById(existing.id)).toMatchObject({ roles: ['user'], passwordHash: existing.passwordHash });
  });

  it('returns null when another instance creates that admin between its lookup and its insert, keeping the other account', async () => {
    const hasher = new GatedPasswordHasher();
    const world = aWorld({ hasher });
    const gate = hasher.pauseNextHash();
    const racing = world.bootstrapAdmin.execute(account);
    await gate.arrived;
    const { user: other } = await world.storeUser({ username: 'keeper', roles: ['admin'] });
    gate.release();
    expect(await racing).toBeNull();
    expect(await world.store.users.count()).toBe(1);
    expect(await world.store.users.findById(other.id)).toMatchObject({ username: 'keeper' });
  });

  it('refuses a password that is too short or too long for bcrypt, and stores nothing', async () => {
    const short = await errorOf(w.bootstrapAdmin.execute({ ...account, password: 'seven77' }));
    expect(short).toMatchObject({ kind: 'validation', code: 'validation_failed' });
    expect(short.errors?.map((e) => e.field)).toEqual(['ADMIN_PASSWORD']);
    const long = await errorOf(w.bootstrapAdmin.execute({ ...account, password: 'é'.repeat(37) }));
    expect(long).toMatchObject({ kind: 'validation', code: 'password_too_long' });
    expect(await w.store.users.count()).toBe(0);
  });
});
