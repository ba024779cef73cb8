import { actorFor, type Actor } from '../../domain/actor.js';
import { addressBucket } from '../../domain/client-address.js';
import { invalidToken, permissionDenied, rateLimited } from '../../domain/error-catalogue.js';
import { KOBO_DEVICE_TOUCH_INTERVAL_MS, koboDeviceWorksFor, koboTouchDue, type KoboDevice } from '../../domain/kobo-device.js';
import type { ThrottlePolicy } from '../../domain/login-throttle.js';
import { canReadBooks } from '../../domain/policies.js';
import type { User } from '../../domain/user.js';
import type { Clock, KoboDeviceRepository, LoginThrottleRepository, SecretGenerator, UserRepository } from '../ports.js';
import type { AuthEvents } from './auth-events.js';

/** A Kobo request's device: its owner acting (with the owner's current permissions) and the device as stored. */
export interface KoboSession {
  readonly actor: Actor;
  readonly user: User;
  readonly device: KoboDevice;
}

/** What a Kobo request presents: the secret of its sync URL, where it comes from, and the e-reader's own id (`x-kobo-deviceid`). */
export interface KoboCredentials {
  readonly secret: string;
  readonly clientAddress: string;
  readonly hardwareId: string | null;
}

const SECRET = /^[A-Za-z0-9_-]{43}$/;
const HARDWARE_ID = /^[A-Za-z0-9_-]{1,100}$/;

/**
 * Turns a sync URL secret into its device and owner. Each attempt is reserved, before any lookup, under
 * the client address (the address policy, as API keys are) and under the e-reader's hardware id when it
 * sends one (the account policy): a burst of guesses lets at most those limits reach the lookup, and a
 * working secret gives its attempts back (using a valid URL is not an attempt), and so does a lookup the
 * store failed (a failover answers 503 without using up the device's attempts). A deleted device, or an
 * owner disabled, deleted or whose password changed since: 401. An owner without books:read: 403.
 */
export class AuthenticateKoboDevice {
  constructor(
    private readonly devices: KoboDeviceRepository,
    private readonly users: UserRepository,
    private readonly secrets: SecretGenerator,
    private readonly throttle: LoginThrottleRepository,
    private readonly clock: Clock,
    private readonly policies: { readonly address: ThrottlePolicy; readonly device: ThrottlePolicy },
    private readonly events: AuthEvents,
  ) {}

  /** One auth event per check (method `kobo_url`): the owner's id when the device is known, never the secret. */
  async execute(credentials: KoboCredentials): Promise<KoboSession> {
    let ownerId: string | null = null;
    try {
      const session = await this.check(credentials, (id) => (ownerId = id));
      this.events.succeeded('kobo_url', session.user.id, credentials.clientAddress);
      return session;
    } catch (error) {
      this.events.failed('kobo_url', ownerId === null ? null : { userId: ownerId }, credentials.clientAddress, error);
      throw error;
    }
  }

  private async check(credentials: KoboCredentials, found: (ownerId: string) => void): Promise<KoboSession> {
    const reserved: Array<[string, ThrottlePolicy]> = [[`kobo-address:${addressBucket(credentials.clientAddress)}`, this.policies.address]];
    if (credentials.hardwareId && HARDWARE_ID.test(credentials.hardwareId)) reserved.push([`kobo-device:${credentials.hardwareId}`, this.policies.device]);
    for (const [key, policy] of reserved) {
      const waitMs = await this.throttle.reserve(key, this.clock.now(), policy);
      if (waitMs > 0) throw rateLimited(Math.ceil(waitMs / 1000));
    }
    const { device, user } = await this.lookUp(credentials.secret, found).catch(async (error: unknown) => {
      await this.release(reserved).catch(() => undefined); // the store failed (503): no secret was judged, the attempt is given back
      throw error;
    });
    if (!device || !user || !koboDeviceWorksFor(device, user)) throw invalidToken();
    const now = this.clock.now();
    await this.release(reserved);
    if (koboTouchDue(device, now)) await this.devices.touchLastUsed(device.id, now, KOBO_DEVICE_TOUCH_INTERVAL_MS);
    const actor = actorFor(user, { kind: 'kobo', deviceId: device.id, lookup: device.lookup });
    if (!canReadBooks(actor)) throw permissionDenied();
    return { actor, user, device };
  }

  private async lookUp(secret: string, found: (ownerId: string) => void): Promise<{ device: KoboDevice | null; user: User | null }> {
    const device = SECRET.test(secret) ? await this.devices.findByLookup(this.secrets.digest(secret)) : null;
    if (device) found(device.ownerId);
    return { device, user: device ? await this.users.findById(device.ownerId) : null };
  }

  private async release(reserved: ReadonlyArray<[string, ThrottlePolicy]>): Promise<void> {
    const now = this.clock.now();
    for (const [key, policy] of reserved) await this.throttle.release(key, now, policy);
  }
}
