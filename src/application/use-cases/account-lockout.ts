import { addressBucket } from '../../domain/client-address.js';
import { KnownBlocks } from '../../domain/known-blocks.js';
import { blockedFor, KNOWN_ADDRESS_MS, type ThrottlePolicy } from '../../domain/login-throttle.js';
import type { Clock, KnownAddressRepository, LoginThrottleRepository } from '../ports.js';

/** The account counter every address shares: password logins, OPDS Basic and KOReader keys count here. */
export const accountCounter = (userId: string): string => `account:${userId}`;
/** The counter of guesses at the current password (password change, SSO link and unlink). */
export const passwordCounter = (userId: string): string => `password:${userId}`;
/** An address's own counter against the account, once the account signed in from there. */
const addressCounter = (userId: string, bucket: string): string => `account:${userId}@${bucket}`;

/** The most known addresses an unlock resets at once (an account's recent ones). */
const UNLOCK_ADDRESSES = 1_000;

/**
 * Lockouts that cannot be used to lock people out (API.md): an address from which the account signed
 * in (password, API key or KOReader key) within the last 30 days counts its failures against a budget
 * of its own, so the account's owner keeps signing in there while other addresses have blocked the
 * account; everyone else shares the account's counter. An admin unlock (or password reset) forgets
 * the account's counters, its addresses' and its current-password guesses. `blocks` is the process's
 * memory of blocks the store reported, shared with the sign-in checks so an unlock here is felt at once.
 */
export class AccountLockout {
  readonly blocks = new KnownBlocks();

  constructor(
    private readonly throttle: LoginThrottleRepository,
    private readonly known: KnownAddressRepository,
    private readonly clock: Clock,
    readonly policy: ThrottlePolicy,
  ) {}

  /** The counter an attempt on the account from this client address counts under. */
  async counterFor(userId: string, clientAddress: string): Promise<string> {
    const bucket = addressBucket(clientAddress);
    const last = await this.known.lastSignIn(userId, bucket);
    const knownHere = last !== null && this.clock.now().getTime() - last.getTime() <= KNOWN_ADDRESS_MS;
    return knownHere ? addressCounter(userId, bucket) : accountCounter(userId);
  }

  /** Records a sign-in from the address, which keeps its own budget for the next 30 days. */
  async signedIn(userId: string, clientAddress: string): Promise<void> {
    await this.known.remember(userId, addressBucket(clientAddress), this.clock.now());
  }

  /** When the account's shared block ends; null when it is not blocked. */
  async lockedUntil(userId: string): Promise<Date | null> {
    const counter = await this.throttle.get(accountCounter(userId));
    return blockedFor(counter, this.clock.now()) > 0 ? counter?.blockedUntil ?? null : null;
  }

  /** Lifts every block of the account: its shared counter, its known addresses' counters and its current-password guesses. */
  async unlock(userId: string): Promise<void> {
    const since = new Date(this.clock.now().getTime() - KNOWN_ADDRESS_MS);
    const addresses = await this.known.recent(userId, since, UNLOCK_ADDRESSES);
    for (const key of [accountCounter(userId), passwordCounter(userId), ...addresses.map((a) => addressCounter(userId, a))]) {
      await this.throttle.reset(key);
      this.blocks.forget(key);
    }
  }
}
