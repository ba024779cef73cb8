import type { Clock, OneTimeCodeRepository, TokenRevocationRepository } from '../ports.js';

/** Housekeeping: forgets token revocations and one-time codes past their expiry. */
export class PurgeExpiredRecords {
  constructor(
    private readonly revocations: TokenRevocationRepository,
    private readonly oneTimeCodes: OneTimeCodeRepository,
    private readonly clock: Clock,
  ) {}

  async execute(): Promise<{ revocationsPurged: number; oneTimeCodesPurged: number }> {
    const now = this.clock.now();
    return { revocationsPurged: await this.revocations.purgeExpired(now), oneTimeCodesPurged: await this.oneTimeCodes.purgeExpired(now) };
  }
}
