import { beforeEach, describe, expect, it } from 'vitest';
import type { Actor } from '../../../src/domain/actor.js';
import { aWorld, errorOf, TEST_NOW, type World } from '../../support/kit.js';

const DIGEST = 'ab'.repeat(16);
const LOOSE = 'cd'.repeat(16);
let w: World;
let reader: Actor;
let other: Actor;

beforeEach(async () => {
  w = aWorld();
  reader = (await w.storeUser({ roles: ['reader'] })).actor;
  other = (await w.storeUser({ roles: ['reader'] })).actor;
  await w.storeBook({ id: 'dune' });
  await w.store.digests.put('dune', { partialMd5: DIGEST, fileNameMd5: 'ef'.repeat(16) });
});

describe('PullSyncProgress', () => {
  it("answers the book's reading state written through REST, as KOReader's position", async () => {
    await w.updateProgress.execute(reader, { bookId: 'dune', update: { percentage: 0.5, locator: '/body/p[9]', device: 'web', deviceId: null } });
    expect(await w.pullSyncProgress.execute(reader, DIGEST.toUpperCase())).toEqual({
      document: DIGEST.toUpperCase(), progress: '/body/p[9]', percentage: 0.5, device: 'web', deviceId: '', updatedAt: TEST_NOW,
    });
    expect(await w.pullSyncProgress.execute(other, DIGEST)).toBeNull();
  });

  it('offers nothing for a state without a locator, nor for a document never pushed', async () => {
    await w.updateProgress.execute(reader, { bookId: 'dune', update: { percentage: 0.5 } });
    expect(await w.pullSyncProgress.execute(reader, DIGEST)).toBeNull();
    expect(await w.pullSyncProgress.execute(reader, LOOSE)).toBeNull();
  });

  it("answers the user's own position in a document that is no book", async () => {
    await w.pushSyncProgress.execute(reader, { document: LOOSE, progress: '40', percentage: 0.4, device: 'Kobo', deviceId: 'K1' });
    expect(await w.pullSyncProgress.execute(reader, LOOSE)).toMatchObject({ document: LOOSE, progress: '40', percentage: 0.4, device: 'Kobo', deviceId: 'K1' });
    expect(await w.pullSyncProgress.execute(other, LOOSE)).toBeNull();
  });

  it('prefers the newer of a position kept before the book was known and the book state', async () => {
    await w.store.digests.deleteForBook('dune');
    await w.pushSyncProgress.execute(reader, { document: DIGEST, progress: 'kept', percentage: 0.2, device: 'Kobo', deviceId: 'K1' });
    await w.store.digests.put('dune', { partialMd5: DIGEST, fileNameMd5: 'ef'.repeat(16) });
    expect((await w.pullSyncProgress.execute(reader, DIGEST))?.progress).toBe('kept');
    w.clock.advance(1_000);
    await w.pushSyncProgress.execute(reader, { document: DIGEST, progress: 'in book', percentage: 0.3, device: 'Kobo', deviceId: 'K1' });
    expect((await w.pullSyncProgress.execute(reader, DIGEST))?.progress).toBe('in book');
  });

  it('refuses an empty or over-long document, and an actor without books:read', async () => {
    expect(await errorOf(w.pullSyncProgress.execute(reader, ''))).toMatchObject({ code: 'validation_failed' });
    expect(await errorOf(w.pullSyncProgress.execute(reader, 'a'.repeat(129)))).toMatchObject({ code: 'validation_failed' });
    expect(await errorOf(w.pullSyncProgress.execute({ ...reader, permissions: [] }, DIGEST))).toMatchObject({ code: 'permission_denied' });
  });
});
