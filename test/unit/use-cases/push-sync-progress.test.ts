import { beforeEach, describe, expect, it } from 'vitest';
import type { Actor } from '../../../src/domain/actor.js';
import type { SyncPush } from '../../../src/domain/kosync.js';
import { aWorld, errorOf, TEST_NOW, type World } from '../../support/kit.js';

const DIGEST = 'ab'.repeat(16);
const LOOSE = 'cd'.repeat(16);
const push = (overrides: Partial<SyncPush> = {}): SyncPush => ({
  document: DIGEST, progress: '/body/DocFragment[7]/body/p[4]/text().9', percentage: 0.35, device: 'Kobo', deviceId: 'K1', ...overrides,
});
let w: World;
let reader: Actor;

beforeEach(async () => {
  w = aWorld();
  reader = (await w.storeUser({ roles: ['reader'] })).actor;
  await w.storeBook({ id: 'dune' });
  await w.store.digests.put('dune', { partialMd5: DIGEST, fileNameMd5: 'ef'.repeat(16) });
});

describe('PushSyncProgress', () => {
  it("writes a matched book's reading state (locator = progress) and answers the time in Unix seconds", async () => {
    expect(await w.pushSyncProgress.execute(reader, push())).toEqual({ document: DIGEST, timestamp: Math.floor(TEST_NOW.getTime() / 1000) });
    expect(await w.store.progress.get(reader.id, 'dune')).toEqual({
      userId: reader.id, bookId: 'dune', status: 'reading', percentage: 0.35, locator: push().progress, device: 'Kobo', deviceId: 'K1', updatedAt: TEST_NOW,
    });
    expect(await w.store.syncDocuments.get(reader.id, DIGEST)).toBeNull();
  });

  it('finds the book from an upper-case digest and marks it finished at 1', async () => {
    await w.pushSyncProgress.execute(reader, push({ document: DIGEST.toUpperCase(), percentage: 1 }));
    expect((await w.store.progress.get(reader.id, 'dune'))?.status).toBe('finished');
  });

  it('keeps a document that matches no book per user, under its lower-case digest', async () => {
    w.clock.advance(5_000);
    const receipt = await w.pushSyncProgress.execute(reader, push({ document: LOOSE.toUpperCase(), progress: '12' }));
    expect(receipt).toEqual({ document: LOOSE.toUpperCase(), timestamp: Math.floor(w.clock.now().getTime() / 1000) });
    expect(await w.store.syncDocuments.get(reader.id, LOOSE)).toEqual({
      userId: reader.id, document: LOOSE, progress: '12', percentage: 0.35, device: 'Kobo', deviceId: 'K1', updatedAt: w.clock.now(),
    });
  });

  it('keeps the position as a document when the matched book was deleted meanwhile', async () => {
    await w.store.books.delete('dune');
    await w.pushSyncProgress.execute(reader, push());
    expect((await w.store.syncDocuments.get(reader.id, DIGEST))?.percentage).toBe(0.35);
  });

  it('refuses out-of-range or over-long input, and an actor without books:read', async () => {
    for (const bad of [push({ percentage: 1.01 }), push({ percentage: Number.NaN }), push({ document: '' }), push({ document: 'a'.repeat(129) }), push({ progress: 'p'.repeat(2049) }), push({ deviceId: 'd'.repeat(101) })]) {
      expect(await errorOf(w.pushSyncProgress.execute(reader, bad))).toMatchObject({ kind: 'validation', code: 'validation_failed' });
    }
    const noRead: Actor = { ...reader, permissions: ['shelves:read'] };
    expect(await errorOf(w.pushSyncProgress.execute(noRead, push()))).toMatchObject({ code: 'permission_denied' });
    expect(await w.store.progress.get(reader.id, 'dune')).toBeNull();
  });
});
