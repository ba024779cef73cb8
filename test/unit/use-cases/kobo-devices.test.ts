import { beforeEach, describe, expect, it } from 'vitest';
import { actorFor } from '../../../src/domain/actor.js';
import { admin, aKoboSession, aShelf, aWorld, errorOf, type World } from '../../support/kit.js';

let w: World;
beforeEach(() => {
  w = aWorld({ idPrefix: 'device-' });
});

const listed = async (actor: Parameters<World['listKoboDevices']['execute']>[0]) =>
  (await w.listKoboDevices.execute(actor, { page: 1, pageSize: 10 })).items.map((d) => d.id);

describe('CreateKoboDevice', () => {
  it('stores the device under the digest of a new secret, with the owner\'s token version, and shows the secret once', async () => {
    const { user, actor } = await w.storeUser({ tokenVersion: 3 });
    const { device, secret } = await w.createKoboDevice.execute(actor, { name: '  Kobo Clara  ' });
    expect(device).toEqual({
      id: 'device-1', ownerId: user.id, name: 'Kobo Clara', lookup: w.secrets.digest(secret), shelfIds: [],
      ownerTokenVersion: 3, lastUsedAt: null, createdAt: w.clock.now(),
    });
    expect(secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await w.store.koboDevices.findByLookup(w.secrets.digest(secret))).toEqual(device);
    expect(JSON.stringify([...w.store.db.koboDevices.values()])).not.toContain(secret);
  });

  it('limits the device to shelves the owner can see: its own and public ones', async () => {
    const { user, actor } = await w.storeUser();
    const own = aShelf({ owner: { id: user.id, username: user.username } });
    const shared = aShelf({ isPublic: true });
    await w.store.shelves.create(own);
    await w.store.shelves.create(shared);
    const { device } = await w.createKoboDevice.execute(actor, { name: 'Libra', shelfIds: [own.id, shared.id] });
    expect((await w.store.koboDevices.listByOwner(user.id, { page: 1, pageSize: 10 })).items).toEqual([device]);
    expect(device.shelfIds).toEqual([own.id, shared.id]);
  });

  it('refuses a bad name or shelf list with validation_failed, and stores nothing', async () => {
    const { actor } = await w.storeUser();
    const hidden = aShelf({ owner: { id: 'someone-else', username: 'else' } });
    await w.store.shelves.create(hidden);
    const mine = aShelf({ owner: { id: actor.id, username: actor.username } });
    await w.store.shelves.create(mine);
    const refused = [
      { name: '   ' }, { name: 'x'.repeat(101) }, { name: 'two\nlines' },
      { name: 'Libra', shelfIds: [hidden.id] }, { name: 'Libra', shelfIds: ['no-such-shelf'] },
      { name: 'Libra', shelfIds: [mine.id, mine.id] }, { name: 'Libra', shelfIds: Array.from({ length: 51 }, (_, i) => `s${i}`) },
    ];
    for (const input of refused) {
      expect(await errorOf(w.createKoboDevice.execute(actor, input))).toMatchObject({ kind: 'validation', code: 'validation_failed' });
    }
    expect(w.store.db.koboDevices.size).toBe(0);
  });

  it('is for a signed-in session only: an API key or a Kobo device cannot add one (403)', async () => {
    const owner = await w.storeUser();
    const kobo = await aKoboSession(w, owner);
    const keyActor = actorFor(owner.user, { kind: 'key', keyId: 'key-1', lookup: 'digest' });
    for (const actor of [keyActor, kobo.actor]) {
      expect(await errorOf(w.createKoboDevice.execute(actor, { name: 'Libra' }))).toMatchObject({ code: 'permission_denied' });
    }
    expect(await listed(owner.actor)).toEqual([kobo.device.id]);
  });

  it('stores no device for a session revoked before the write (password reset meanwhile): invalid_token', async () => {
    const { user, actor } = await w.storeUser();
    await w.resetPassword.execute(admin, { userId: user.id, newPassword: 'a fresh password' });
    expect(await errorOf(w.createKoboDevice.execute(actor, { name: 'Libra' }))).toMatchObject({ code: 'invalid_token' });
    expect(w.store.db.koboDevices.size).toBe(0);
  });
});

describe('ListKoboDevices', () => {
  it('lists the caller\'s own devices, newest first, never a secret', async () => {
    const alice = await w.storeUser();
    const bob = await w.storeUser();
    const first = await w.createKoboDevice.execute(alice.actor, { name: 'First' });
    w.clock.advance(1_000);
    const second = await w.createKoboDevice.execute(alice.actor, { name: 'Second' });
    await w.createKoboDevice.execute(bob.actor, { name: 'Bob\'s' });
    const page = await w.listKoboDevices.execute(alice.actor, { page: 1, pageSize: 10 });
    expect(page).toMatchObject({ total: 2, page: 1, pageSize: 10 });
    expect(page.items.map((d) => d.name)).toEqual(['Second', 'First']);
    expect(JSON.stringify(page)).not.toContain(first.secret);
    expect(JSON.stringify(page)).not.toContain(second.secret);
    expect(await listed(bob.actor)).toHaveLength(1);
  });

  it('refuses a Kobo device itself (403)', async () => {
    const kobo = await aKoboSession(w, await w.storeUser());
    expect(await errorOf(listed(kobo.actor))).toMatchObject({ code: 'permission_denied' });
  });
});

describe('RevokeKoboDevice', () => {
  it('deletes the caller\'s device, whose URL then stops working; another\'s device is kobo_device_not_found and stays', async () => {
    const alice = await w.storeUser();
    const bob = await w.storeUser();
    const hers = await aKoboSession(w, alice);
    const his = await aKoboSession(w, bob);
    expect(await errorOf(w.revokeKoboDevice.execute(alice.actor, his.device.id))).toMatchObject({ kind: 'not_found', code: 'kobo_device_not_found' });
    await w.revokeKoboDevice.execute(alice.actor, hers.device.id);
    expect(await listed(alice.actor)).toEqual([]);
    expect(await listed(bob.actor)).toEqual([his.device.id]);
    expect(await errorOf(w.authenticateKoboDevice.execute({ secret: hers.secret, clientAddress: '198.51.100.1', hardwareId: null })))
      .toMatchObject({ code: 'invalid_token' });
    expect(await errorOf(w.revokeKoboDevice.execute(alice.actor, hers.device.id))).toMatchObject({ code: 'kobo_device_not_found' });
  });

  it('refuses a Kobo device revoking itself (403), and keeps it', async () => {
    const owner = await w.storeUser();
    const kobo = await aKoboSession(w, owner);
    expect(await errorOf(w.revokeKoboDevice.execute(kobo.actor, kobo.device.id))).toMatchObject({ code: 'permission_denied' });
    expect(await listed(owner.actor)).toEqual([kobo.device.id]);
  });
});
