import { beforeEach, describe, expect, it } from 'vitest';
import { admin, alice, aWorld, errorOf, type World } from '../../support/kit.js';

let w: World;
beforeEach(() => {
  w = aWorld();
});

describe('DeleteUser', () => {
  it('deletes the account, and its tokens stop working at once', async () => {
    const { user } = await w.storeUser();
    const issued = w.tokens.issue(user);
    await w.deleteUser.execute(admin, user.id);
    expect(await w.store.users.findById(user.id)).toBeNull();
    expect(await errorOf(w.authenticate.execute(issued.token))).toMatchObject({ kind: 'unauthenticated', code: 'invalid_token' });
  });

  it('deletes the account\'s reading progress and no one else\'s', async () => {
    const { user, actor } = await w.storeUser();
    const { actor: other } = await w.storeUser();
    const book = await w.storeBook();
    await w.updateProgress.execute(actor, { bookId: book.id, update: { percentage: 0.5 } });
    await w.updateProgress.execute(other, { bookId: book.id, update: { percentage: 0.6 } });
    await w.deleteUser.execute(admin, user.id);
    expect(await w.store.progress.get(user.id, book.id)).toBeNull();
    expect(await w.store.progress.get(other.id, book.id)).toMatchObject({ percentage: 0.6 });
  });

  it('deletes the account\'s API keys and no one else\'s', async () => {
    const { user, actor } = await w.storeUser();
    const { user: other, actor: otherActor } = await w.storeUser();
    await w.createApiKey.execute(actor, { ownerId: user.id, name: 'kobo' });
    await w.createApiKey.execute(otherActor, { ownerId: other.id, name: 'kindle' });
    await w.deleteUser.execute(admin, user.id);
    expect((await w.store.apiKeys.listByOwner(user.id, { page: 1, pageSize: 10 })).total).toBe(0);
    expect((await w.store.apiKeys.listByOwner(other.id, { page: 1, pageSize: 10 })).items.map((k) => k.name)).toEqual(['kindle']);
  });

  it("deletes the account's KOReader positions of unmatched documents and no one else's", async () => {
    const { user, actor } = await w.storeUser();
    const { actor: other } = await w.storeUser();
    const position = { document: 'cd'.repeat(16), progress: '12', percentage: 0.1, device: 'Kobo', deviceId: 'K1' };
    await w.pushSyncProgress.execute(actor, position);
    await w.pushSyncProgress.execute(other, position);
    await w.deleteUser.execute(admin, user.id);
    expect(await w.store.syncDocuments.get(user.id, position.document)).toBeNull();
    expect(await w.store.syncDocuments.get(other.id, position.document)).toMatchObject({ progress: '12' });
  });

  it("deletes the account's Kobo devices with what they archived, and no one else's", async () => {
    const { user } = await w.storeUser();
    const { user: other } = await w.storeUser();
    const device = (ownerId: string, id: string) => ({
      id, ownerId, name: 'Kobo', lookup: `lookup-${id}`, shelfIds: [], ownerTokenVersion: 0, lastUsedAt: null, createdAt: new Date(0),
    });
    await w.store.koboDevices.create(device(user.id, 'k1'));
    await w.store.koboDevices.create(device(other.id, 'k2'));
    await w.store.koboDevices.archive('k1', 'some-book');
    await w.deleteUser.execute(admin, user.id);
    expect(await w.store.koboDevices.findByLookup('lookup-k1')).toBeNull();
    expect((await w.store.koboDevices.listByOwner(user.id, { page: 1, pageSize: 10 })).total).toBe(0);
    expect(await w.store.koboDevices.archivedAmong('k1', ['some-book'])).toEqual(new Set());
    expect(await w.store.koboDevices.findByLookup('lookup-k2')).toMatchObject({ id: 'k2', ownerId: other.id });
  });

  it('refuses to delete the last active admin with last_admin, but deletes an admin who has a peer', async () => {
    const { user: first } = await w.storeUser({ roles: ['admin'] });
    expect(await errorOf(w.deleteUser.execute(admin, first.id))).toMatchObject({ kind: 'conflict', code: 'last_admin' });
    expect(await w.store.users.findById(first.id)).toEqual(first);
    await w.storeUser({ roles: ['admin'] });
    await w.deleteUser.execute(admin, first.id);
    expect(await w.store.users.findById(first.id)).toBeNull();
  });

  it('deletes a disabled admin even when no other admin is active', async () => {
    const { user } = await w.storeUser({ roles: ['admin'], disabled: true });
    await w.deleteUser.execute(admin, user.id);
    expect(await w.store.users.count()).toBe(0);
  });

  it('answers user_not_found for an unknown id, and permission_denied for a non-admin', async () => {
    const { user } = await w.storeUser();
    expect(await errorOf(w.deleteUser.execute(admin, 'ghost'))).toMatchObject({ kind: 'not_found', code: 'user_not_found' });
    expect(await errorOf(w.deleteUser.execute(alice, user.id))).toMatchObject({ kind: 'forbidden', code: 'permission_denied' });
    expect(await w.store.users.findById(user.id)).toEqual(user);
  });
});
