import type { User } from './user.js';

/** The longest device name; names follow the name rules (no control character, tab or line break). */
export const KOBO_DEVICE_NAME_MAX = 100;
/** The most shelves one device may be limited to. */
export const KOBO_DEVICE_SHELVES_MAX = 50;
/** `last_used_at` is written at most this often per device. */
export const KOBO_DEVICE_TOUCH_INTERVAL_MS = 60_000;

/**
 * A Kobo e-reader allowed to sync: its personal sync URL carries a secret of which only the lookup
 * digest is stored. With shelf ids it gets only the books on those shelves; without, every book its
 * owner may read.
 */
export interface KoboDevice {
  readonly id: string;
  readonly ownerId: string;
  readonly name: string;
  /** The SHA-256 digest of the secret in the sync URL. */
  readonly lookup: string;
  /** Empty: every readable book syncs. */
  readonly shelfIds: readonly string[];
  /** The owner's token version when the device was added: a password change, reset or disabling ends it. */
  readonly ownerTokenVersion: number;
  readonly lastUsedAt: Date | null;
  readonly createdAt: Date;
}

/** Whether the device's URL works for this owner now: the owner enabled and no revocation of the owner's credentials since. */
export function koboDeviceWorksFor(device: KoboDevice, owner: Pick<User, 'id' | 'disabled' | 'tokenVersion'>): boolean {
  return device.ownerId === owner.id && !owner.disabled && owner.tokenVersion === device.ownerTokenVersion;
}

/** Whether `lastUsedAt` is stale enough to record a new use at `now`. */
export function koboTouchDue(device: Pick<KoboDevice, 'lastUsedAt'>, now: Date): boolean {
  return device.lastUsedAt === null || now.getTime() - device.lastUsedAt.getTime() >= KOBO_DEVICE_TOUCH_INTERVAL_MS;
}
