import { KNOWN_ADDRESS_MS } from '../../domain/login-throttle.js';
import type { Clock, KnownAddressRepository, OneTimeCodeRepository, TokenRevocationRepository } from '../ports.js';

/** Housekeeping: forgets token revocations and one-time codes past their expiry, and sign-in addresses unused for 30 days. */
export class PurgeExpiredRecords {
  constructor(
    private readonly revocations: TokenRevocationRepository,
    private readonly oneTimeCodes: OneTimeCodeRepository,
    private readonly clock: Clock,
    private readonly knownAddresses: KnownAddressRepository,
  ) {}

  async execute(): Promise<{ revocationsPurged: number; oneTimeCodesPurged: number; knownAddressesPurged: number }> {
    const now = this.clock.now();
    return {
      revocationsPurged: await this.revocations.purgeExpired(now),
      oneTimeCodesPurged: await this.oneTimeCodes.purgeExpired(now),
      knownAddressesPurged: await this.knownAddresses.purgeBefore(new Date(now.getTime() - KNOWN_ADDRESS_MS)),
    };
  }
}
