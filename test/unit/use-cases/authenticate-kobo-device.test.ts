import { beforeEach, describe, expect, it } from 'vitest';
import { KOBO_DEVICE_TOUCH_INTERVAL_MS } from '../../../src/domain/kobo-device.js';
import { admin, aKoboSession, aWorld, errorOf, KOBO_ADDRESS, type World } from '../../support/kit.js';

let w: World;
beforeEach(() => {
  w = aWorld({ idPrefix: 'device-' });
});

/** A well-formed secret no device has. */
const UNKNOWN = 'x'.repeat(43);
const attempt = (secret: string, clientAddress = KOBO_ADDRESS, hardwareId: string | null = null) =>
  w.authenticateKoboDevice.execute({ secret, clientAddress, hardwareId });

describe('AuthenticateKoboDevice', () => {
  it('turns the sync URL secret into its device and owner, acting with the owner\'s permissions through the device', async () => {
    const owner = await w.storeUser({ roles: ['reader'] });
    const { secret, device } = await aKoboSession(w, owner);
    const session = await attempt(secret);
    expect(session.user).toEqual(owner.user);
    expect(session.device).toMatchObject({ id: device.id, ownerId: owner.user.id });
    expect(session.actor).toMatchObject({
      id: owner.user.id, roles: ['reader'], permissions: ['books:read', 'shelves:read'],
      credential: { kind: 'kobo', deviceId: device.id, lookup: w.secrets.digest(secret) },
    });
    expect(w.logged.at(-1)?.details).toEqual({ event: 'auth_succeeded', method: 'kobo_url', user_id: owner.user.id, address: KOBO_ADDRESS });
    expect(JSON.stringify(w.logged)).not.toContain(secret);
  });

  it('records the device\'s last use at most once a minute', async () => {
    const { secret, device } = await aKoboSession(w, await w.storeUser());
    const lastUsed = async () => (await w.store.koboDevices.findByLookup(device.lookup))?.lastUsedAt;
    const first = w.clock.now();
    expect(await lastUsed()).toEqual(first);
    w.clock.advance(KOBO_DEVICE_TOUCH_INTERVAL_MS - 1);
    await attempt(secret);
    expect(await lastUsed()).toEqual(first);
    w.clock.advance(1);
    await attempt(secret);
    expect(await lastUsed()).toEqual(w.clock.now());
  });

  it('answers invalid_token for an unknown or malformed secret, a revoked device, and an owner disabled or whose password changed', async () => {
    const owner = await w.storeUser();
    const revoked = await aKoboSession(w, owner);
    await w.revokeKoboDevice.execute(owner.actor, revoked.device.id);
    const disabled = await w.storeUser();
    const ofDisabled = await aKoboSession(w, disabled);
    await w.store.users.updateAccess(disabled.user.id, { disabled: true }, w.clock.now());
    const reset = await w.storeUser();
    const ofReset = await aKoboSession(w, reset);
    await w.resetPassword.execute(admin, { userId: reset.user.id, newPassword: 'a fresh password' });
    for (const secret of [UNKNOWN, 'short', `${UNKNOWN}/`, revoked.secret, ofDisabled.secret, ofReset.secret]) {
      expect(await errorOf(attempt(secret))).toMatchObject({ kind: 'unauthenticated', code: 'invalid_token' });
    }
    expect(w.logged.filter((l) => l.details.event === 'auth_failed').map((l) => l.details.user_id ?? null))
      .toEqual([null, null, null, null, disabled.user.id, reset.user.id]);
  });

  it('refuses an owner whose roles no longer grant books:read (403)', async () => {
    const owner = await w.storeUser();
    const { secret } = await aKoboSession(w, owner);
    await w.store.users.updateAccess(owner.user.id, { roles: [] }, w.clock.now());
    expect(await errorOf(attempt(secret))).toMatchObject({ kind: 'forbidden', code: 'permission_denied' });
  });

  it('limits guesses per client address (10 in the window): then even a working secret waits, elsewhere it works', async () => {
    const { secret } = await aKoboSession(w, await w.storeUser());
    for (let i = 0; i < 10; i++) expect(await errorOf(attempt(UNKNOWN))).toMatchObject({ code: 'invalid_token' });
    expect(await errorOf(attempt(secret))).toMatchObject({ kind: 'rate_limited', code: 'rate_limited' });
    expect((await attempt(secret, '198.51.100.1')).device.shelfIds).toEqual([]);
  });

  it('limits guesses per e-reader hardware id (3, the account policy) across addresses', async () => {
    const { secret } = await aKoboSession(w, await w.storeUser());
    for (let i = 0; i < 3; i++) await errorOf(attempt(UNKNOWN, `198.51.100.${i}`, 'hw-1'));
    expect(await errorOf(attempt(secret, '198.51.100.9', 'hw-1'))).toMatchObject({ code: 'rate_limited' });
    expect((await attempt(secret, '198.51.100.9', 'hw-2')).user).toBeDefined();
  });

  it('gives a working secret\'s attempt back: a device syncing all day is never limited', async () => {
    const { secret } = await aKoboSession(w, await w.storeUser());
    for (let i = 0; i < 50; i++) await attempt(secret, KOBO_ADDRESS, 'hw-1');
    expect(await w.store.throttle.get(`kobo-address:${KOBO_ADDRESS}`)).toMatchObject({ failures: 0, blockedUntil: null });
    expect(await w.store.throttle.get('kobo-device:hw-1')).toMatchObject({ failures: 0, blockedUntil: null });
  });
});
