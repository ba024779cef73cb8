import { describe, expect, it } from 'vitest';
import type { KoboDevice } from '../../src/domain/kobo-device.js';
import { errorOf, instant } from '../support/kit.js';
import type { StoreFactory } from './stores.js';
import { STORE_FACTORIES, itWhere, useStore } from './stores.js';

const MINUTE = 60_000;
let n = 0;

function aDevice(overrides: Partial<KoboDevice> = {}): KoboDevice {
  n += 1;
  return {
    id: `dev-${n}`, ownerId: 'owner-1', name: `Kobo ${n}`, lookup: `lookup-${n}`, shelfIds: [], ownerTokenVersion: 0,
    lastUsedAt: null, createdAt: instant(n), ...overrides,
  };
}

function koboDeviceRepositoryContract(factory: StoreFactory): void {
  const store = useStore(factory);
  const devices = () => store().koboDevices;

  it('finds a device by its lookup digest, every field as stored', async () => {
    const device = aDevice({ shelfIds: ['s1', 's2'], lastUsedAt: instant(400), ownerTokenVersion: 2 });
    await devices().create(device);
    expect(await devices().findByLookup(device.lookup)).toEqual(device);
    expect(await devices().findByLookup('nothing')).toBeNull();
  });

  itWhere(factory, 'uniqueIndexes')('refuses a second device with the same lookup digest (409 kobo_device_exists)', async () => {
    const device = aDevice();
    await devices().create(device);
    expect(await errorOf(devices().create(aDevice({ lookup: device.lookup })))).toMatchObject({ kind: 'conflict', code: 'kobo_device_exists' });
  });

  it("lists only the owner's devices, newest first, a page at a time with the total", async () => {
    const [a, b] = [aDevice({ createdAt: instant(1) }), aDevice({ createdAt: instant(2) })];
    for (const d of [a, b, aDevice({ ownerId: 'owner-2' })]) await devices().create(d);
    expect(await devices().listByOwner('owner-1', { page: 1, pageSize: 1 })).toEqual({ items: [b], total: 2 });
    expect((await devices().listByOwner('owner-1', { page: 2, pageSize: 1 })).items).toEqual([a]);
  });

  it('revokes only through its owner, once, and forgets what it archived', async () => {
    const device = aDevice();
    await devices().create(device);
    await devices().archive(device.id, 'book-1');
    expect(await devices().revoke('owner-2', device.id)).toBe(false);
    expect(await devices().revoke('owner-1', device.id)).toBe(true);
    expect(await devices().revoke('owner-1', device.id)).toBe(false);
    expect(await devices().findByLookup(device.lookup)).toBeNull();
    expect([...await devices().archivedAmong(device.id, ['book-1'])]).toEqual([]);
  });

  it('records a use only when the last one is unset or at least the interval old; one of many concurrent touches writes', async () => {
    const device = aDevice();
    await devices().create(device);
    const written = await Promise.all(Array.from({ length: 20 }, () => devices().touchLastUsed(device.id, instant(100), MINUTE)));
    expect(written.filter(Boolean)).toHaveLength(1);
    expect(await devices().touchLastUsed(device.id, instant(159), MINUTE)).toBe(false);
    expect(await devices().touchLastUsed(device.id, instant(160), MINUTE)).toBe(true);
    expect((await devices().findByLookup(device.lookup))?.lastUsedAt).toEqual(instant(160));
  });

  it('archives books per device, idempotently, and tells which of a list are archived', async () => {
    const [one, two] = [aDevice(), aDevice()];
    await devices().create(one);
    await devices().create(two);
    await Promise.all([devices().archive(one.id, 'b1'), devices().archive(one.id, 'b1'), devices().archive(one.id, 'b3')]);
    expect([...await devices().archivedAmong(one.id, ['b1', 'b2', 'b3'])].sort()).toEqual(['b1', 'b3']);
    expect([...await devices().archivedAmong(two.id, ['b1'])]).toEqual([]);
    expect([...await devices().archivedAmong(one.id, [])]).toEqual([]);
  });

  it("deletes every device of a user, and only theirs", async () => {
    for (const d of [aDevice(), aDevice(), aDevice({ ownerId: 'owner-2' })]) await devices().create(d);
    expect(await devices().deleteForUser('owner-1')).toBe(2);
    expect((await devices().listByOwner('owner-2', { page: 1, pageSize: 10 })).total).toBe(1);
  });
}

for (const factory of STORE_FACTORIES) {
  describe(`KoboDeviceRepository contract (${factory.name})`, () => koboDeviceRepositoryContract(factory));
}
