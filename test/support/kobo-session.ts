import type { KoboSession } from '../../src/application/use-cases/authenticate-kobo-device.js';
import type { Actor } from '../../src/domain/actor.js';
import type { World } from './use-case-world.js';

/** Where the Kobo unit tests' e-readers call from. */
export const KOBO_ADDRESS = '203.0.113.7';

/**
 * Adds a Kobo device for a stored user (CreateKoboDevice, optionally limited to shelves) and signs it
 * in through its sync URL secret (AuthenticateKoboDevice), as each Kobo request is.
 */
export async function aKoboSession(w: World, owner: { readonly actor: Actor }, shelfIds: readonly string[] = []): Promise<KoboSession & { readonly secret: string }> {
  const { secret } = await w.createKoboDevice.execute(owner.actor, { name: 'Kobo Libra Colour', shelfIds });
  return { ...(await w.authenticateKoboDevice.execute({ secret, clientAddress: KOBO_ADDRESS, hardwareId: null })), secret };
}
