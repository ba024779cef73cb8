import type { Actor } from '../../domain/actor.js';
import { actsThroughKey } from '../../domain/api-key.js';
import { invalidInput, koboDeviceNotFound, permissionDenied } from '../../domain/error-catalogue.js';
import { KOBO_DEVICE_NAME_MAX, KOBO_DEVICE_SHELVES_MAX, type KoboDevice } from '../../domain/kobo-device.js';
import { pageOf, type Page, type PageRequest } from '../../domain/page.js';
import { canSeeShelf } from '../../domain/policies.js';
import { isCleanName, NAME_CONTROL_MESSAGE } from '../../domain/text.js';
import type { Clock, IdGenerator, KoboDeviceRepository, SecretGenerator, ShelfRepository } from '../ports.js';
import type { Authority } from './authority.js';

export interface CreateKoboDeviceInput {
  readonly name: string;
  /** Shelves the caller can see; absent or empty: every book the owner may read syncs. */
  readonly shelfIds?: readonly string[] | undefined;
}

export interface CreatedKoboDevice {
  readonly device: KoboDevice;
  /** The secret of the sync URL, shown this once; only its digest is stored. */
  readonly secret: string;
}

/** Only a signed-in session manages Kobo devices: a personal API key cannot (403). */
function requireSession(actor: Actor): void {
  if (actsThroughKey(actor)) throw permissionDenied();
}

/**
 * Adds a Kobo device to the caller's account: a new sync URL secret, stored as its digest. Authority is
 * confirmed just before the write, and the device records the owner's token version as confirmed then
 * (the creating session's own): a device asked for by a session revoked meanwhile is never stored.
 */
export class CreateKoboDevice {
  constructor(
    private readonly devices: KoboDeviceRepository,
    private readonly shelves: ShelfRepository,
    private readonly secrets: SecretGenerator,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
    private readonly authority: Authority,
  ) {}

  async execute(actor: Actor, input: CreateKoboDeviceInput): Promise<CreatedKoboDevice> {
    requireSession(actor);
    const name = input.name.trim();
    if (name.length === 0 || name.length > KOBO_DEVICE_NAME_MAX) {
      throw invalidInput('The device needs a name.', [{ field: 'name', message: `must be 1 to ${KOBO_DEVICE_NAME_MAX} characters` }]);
    }
    if (!isCleanName(name)) throw invalidInput('The device name is invalid.', [{ field: 'name', message: NAME_CONTROL_MESSAGE }]);
    const shelfIds = [...(input.shelfIds ?? [])];
    // Decided with the account as it is now (the body may have been held while a password changed).
    const { actor: confirmed, user: owner } = await this.authority.confirm(actor);
    if (!owner || actsThroughKey(confirmed)) throw permissionDenied();
    await this.checkShelves(confirmed, shelfIds);
    const secret = this.secrets.generate();
    const device: KoboDevice = {
      id: this.ids.next(), ownerId: owner.id, name, lookup: this.secrets.digest(secret), shelfIds,
      ownerTokenVersion: owner.tokenVersion, lastUsedAt: null, createdAt: this.clock.now(),
    };
    await this.devices.create(device);
    return { device, secret };
  }

  private async checkShelves(actor: Actor, shelfIds: readonly string[]): Promise<void> {
    const refuse = (message: string) => invalidInput('The shelves cannot be synced.', [{ field: 'shelf_ids', message }]);
    if (shelfIds.length > KOBO_DEVICE_SHELVES_MAX) throw refuse(`must name at most ${KOBO_DEVICE_SHELVES_MAX} shelves`);
    if (new Set(shelfIds).size !== shelfIds.length) throw refuse('must not repeat a shelf');
    for (const id of shelfIds) {
      const shelf = await this.shelves.findById(id);
      if (!shelf || !canSeeShelf(actor, shelf)) throw refuse('must name shelves you can see');
    }
  }
}

/** One page of the caller's Kobo devices, newest first (never a secret: none is stored). */
export class ListKoboDevices {
  constructor(private readonly devices: KoboDeviceRepository) {}

  async execute(actor: Actor, page: PageRequest): Promise<Page<KoboDevice>> {
    requireSession(actor);
    const { items, total } = await this.devices.listByOwner(actor.id, page);
    return pageOf(items, total, page);
  }
}

/** Deletes one of the caller's Kobo devices (authority confirmed just before); its sync URL stops working on the next request, on every instance. */
export class RevokeKoboDevice {
  constructor(
    private readonly devices: KoboDeviceRepository,
    private readonly authority: Authority,
  ) {}

  async execute(actor: Actor, id: string): Promise<void> {
    requireSession(actor);
    await this.authority.confirm(actor);
    if (!(await this.devices.revoke(actor.id, id))) throw koboDeviceNotFound(id);
  }
}
